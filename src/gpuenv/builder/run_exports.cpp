#include "gpuenv/builder/run_exports.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// A run_exports.json nests two levels (object of lists); anything deeper is
// refused while parsing, before it can cost memory or stack.
constexpr int kMaxRunExportsDepth = 4;
struct TooDeep {};

std::unexpected<BuildError> malformed(const std::string& origin, const std::string& what) {
  return std::unexpected(BuildError{BuildErrorKind::environment,
                                    origin + " " + what +
                                        ": the package is damaged or was not built for conda; rebuild it, or name it "
                                        "in requirements.ignore_run_exports.from_package"});
}

std::expected<std::vector<std::string>, BuildError> spec_list(const json& value, const std::string& origin,
                                                              const std::string& key) {
  if (!value.is_array()) return malformed(origin, "has \"" + key + "\" that is not a list of specs");
  std::vector<std::string> specs;
  for (const auto& item : value) {
    if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
      return malformed(origin, "has an entry in \"" + key + "\" that is not a match spec");
    }
    specs.push_back(item.get<std::string>());
  }
  return specs;
}

std::string spec_name(const std::string& spec) {
  return specs::MatchSpec::extract_name(spec).value_or(spec);
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

void append_new_specs(std::vector<std::string>& specs, const std::vector<std::string>& additions) {
  for (const auto& spec : additions) {
    if (!contains(specs, spec)) specs.push_back(spec);
  }
}

std::expected<ExportedSpecs, BuildError> parse_run_exports_json(std::string_view text, const std::string& origin) {
  json document;
  try {
    document = json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxRunExportsDepth) throw TooDeep{};
      return true;
    });
  } catch (const json::parse_error& error) {
    return malformed(origin, "is not valid JSON (byte " + std::to_string(error.byte) + ")");
  } catch (const TooDeep&) {
    return malformed(origin, "nests deeper than " + std::to_string(kMaxRunExportsDepth) + " levels");
  }
  ExportedSpecs exports;
  if (document.is_array()) {  // conda-build before 3: a plain list, all weak
    auto weak = spec_list(document, origin, "weak");
    if (!weak) return std::unexpected(weak.error());
    exports.weak = std::move(*weak);
    return exports;
  }
  if (!document.is_object()) return malformed(origin, "is not an object of run_exports lists");
  const std::pair<const char*, std::vector<std::string>*> keys[] = {
      {"noarch", &exports.noarch}, {"strong", &exports.strong}, {"strong_constrains", &exports.strong_constrains},
      {"weak", &exports.weak}, {"weak_constrains", &exports.weak_constrains}};
  for (const auto& [key, into] : keys) {
    const auto found = document.find(key);
    if (found == document.end() || found->is_null()) continue;
    auto list = spec_list(*found, origin, key);
    if (!list) return std::unexpected(list.error());
    *into = std::move(*list);
  }
  return exports;
}

std::expected<std::vector<PackageRunExports>, BuildError> environment_run_exports(
    const fs::path& prefix, const std::vector<specs::PackageRecord>& linked, const std::vector<std::string>& requested) {
  std::set<std::string> named;
  for (const auto& spec : requested) named.insert(spec_name(spec));
  std::vector<const specs::PackageRecord*> direct;
  for (const auto& record : linked) {
    if (named.contains(record.name)) direct.push_back(&record);
  }
  if (direct.empty()) return std::vector<PackageRunExports>{};
  std::map<std::string, std::string, std::less<>> extracted_dirs;
  for (const auto& installed : prefix::read_prefix_records(prefix).records) {
    extracted_dirs[installed.package.name] = installed.extracted_package_dir;
  }
  std::vector<PackageRunExports> exports;
  for (const auto* record : direct) {
    const auto dir = extracted_dirs.find(record->name);
    const std::string package = record->name + " " + record->version + " " + record->build;
    if (dir == extracted_dirs.end() || dir->second.empty()) {
      return std::unexpected(BuildError{BuildErrorKind::environment,
                                        "cannot read the run_exports of " + package + ": " + prefix.string() +
                                            "/conda-meta has no record of where it was extracted; remove " +
                                            prefix.string() + " and build again"});
    }
    const auto file = fs::path(dir->second) / "info" / "run_exports.json";
    const std::string origin = "info/run_exports.json of " + package + " (" + file.string() + ")";
    auto text = util::read_regular_file_at_most(file, kMaxRunExportsBytes);
    if (!text) {
      if (text.error().kind == util::FileReadError::Kind::missing) continue;
      return malformed(origin, text.error().kind == util::FileReadError::Kind::too_large
                                   ? "is larger than " + util::describe_byte_count(kMaxRunExportsBytes)
                                   : "cannot be read (" + text.error().message + ")");
    }
    auto parsed = parse_run_exports_json(*text, origin);
    if (!parsed) return std::unexpected(parsed.error());
    exports.push_back({record->name, std::move(*parsed)});
  }
  return exports;
}

AppliedRunExports apply_run_exports(const std::vector<PackageRunExports>& build_environment,
                                    const std::vector<PackageRunExports>& host_environment,
                                    const recipe::IgnoreRunExports& ignore, bool noarch) {
  AppliedRunExports applied;
  // Each list of each package that is not ignored, with by_name applied.
  const auto collect = [&](const std::vector<PackageRunExports>& environment,
                           std::vector<std::string> ExportedSpecs::*list, std::vector<std::string>& into) {
    for (const auto& package : environment) {
      if (contains(ignore.from_package, package.package)) continue;
      for (const auto& spec : package.exports.*list) {
        if (!contains(ignore.by_name, spec_name(spec)) && !contains(into, spec)) into.push_back(spec);
      }
    }
  };
  if (noarch) {
    collect(host_environment, &ExportedSpecs::noarch, applied.run);
    return applied;
  }
  collect(build_environment, &ExportedSpecs::strong, applied.host);
  collect(build_environment, &ExportedSpecs::strong, applied.run);
  collect(host_environment, &ExportedSpecs::strong, applied.run);
  collect(host_environment, &ExportedSpecs::weak, applied.run);
  collect(build_environment, &ExportedSpecs::strong_constrains, applied.run_constraints);
  collect(host_environment, &ExportedSpecs::strong_constrains, applied.run_constraints);
  collect(host_environment, &ExportedSpecs::weak_constrains, applied.run_constraints);
  return applied;
}

}  // namespace gpuenv::build
