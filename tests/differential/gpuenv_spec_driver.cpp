// gpuenv's side of the spec oracle: the line protocol of ../shared/oracle's
// conda_driver.py (one JSON request per line on stdin, one JSON answer per
// line on stdout, in order), answered by gpuenv's specs module, so that
// matchspec_differential.py can put the same questions to conda and gpuenv.
#include <iostream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/spec_error.hpp"
// One reading of a record, shared with the match tables' test.
#include "../unit/specs/record_from_json.hpp"

namespace {

using gpuenv::specs::MatchSpec;
using gpuenv::specs::SpecError;
using nlohmann::json;

json optional_field(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

json text_or_null(std::string_view text) { return text.empty() ? json(nullptr) : json(std::string(text)); }

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

// The fields as conda_driver.py reports them: null where conda holds no value.
json spec_fields(const MatchSpec& spec) {
  json fields;
  fields["name"] = spec.name().str();
  fields["version"] = spec.has_version()             ? json(std::string(spec.version_text()))
                      : spec.version_written_as_star() ? json("*")
                                                       : json(nullptr);
  fields["build"] = !spec.build().is_any()         ? json(spec.build().str())
                    : spec.build_written_as_star() ? json("*")
                                                   : json(nullptr);
  fields["channel"] = spec.channel() ? json(spec.channel()->str()) : json(nullptr);
  fields["subdir"] = text_or_null(spec.subdir_str());
  fields["build_number"] =
      spec.build_number().is_explicitly_free() ? json(nullptr) : json(spec.build_number_str());
  fields["fn"] = text_or_null(spec.fn());
  fields["url"] = text_or_null(spec.url());
  fields["md5"] = text_or_null(spec.md5());
  fields["sha256"] = text_or_null(spec.sha256());
  fields["license"] = spec.license() ? json(spec.license()->str()) : json(nullptr);
  fields["license_family"] = spec.license_family() ? json(spec.license_family()->str()) : json(nullptr);
  fields["track_features"] = spec.track_features() ? json(joined(*spec.track_features())) : json(nullptr);
  fields["features"] = spec.features() ? json(joined(*spec.features())) : json(nullptr);
  fields["exact_name"] = optional_field(spec.exact_name());
  fields["exact_version"] = optional_field(spec.exact_version());
  fields["exact_build"] = optional_field(spec.exact_build());
  fields["strictness"] = spec.strictness();
  fields["optional"] = spec.optional();
  try {
    fields["conda_build_form"] = spec.conda_build_form();
  } catch (const SpecError&) {
    fields["conda_build_form"] = nullptr;
  }
  fields["conda_env_form"] = spec.conda_env_form();
  return fields;
}

json error_answer(const char* phase, const std::string& message) {
  return {{"ok", false}, {"phase", phase}, {"err", message}};
}

json answer(const json& request) {
  const std::string op = request.value("op", "");
  if (op != "matchspec" && op != "match") return error_answer("parse", "unknown op " + op);
  std::optional<MatchSpec> spec;
  try {
    spec = MatchSpec::parse(request.at("s").get<std::string>());
  } catch (const SpecError& error) {
    return error_answer("parse", error.what());
  }
  if (op == "matchspec") return {{"ok", true}, {"str", spec->str()}, {"fields", spec_fields(*spec)}};
  return {{"ok", true}, {"r", spec->matches(gpuenv::specs::test::record_from_json(request.at("rec")))}};
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json request;
    json out;
    try {
      request = json::parse(line);
      out = answer(request);
    } catch (const json::exception& error) {
      out = error_answer("request", error.what());
    }
    if (request.is_object() && request.contains("id")) out["id"] = request["id"];
    std::cout << out.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  }
  return 0;
}
