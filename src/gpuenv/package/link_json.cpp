#include "gpuenv/package/link_json.hpp"

#include <nlohmann/json.hpp>

#include "gpuenv/package/package_error.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::package {

namespace {
using namespace std::string_view_literals;
bool is_plain_file_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of("/\\\0"sv) == std::string_view::npos;
}
}  // namespace

EntryPoint parse_entry_point(std::string_view text, std::string_view source) {
  const auto equals = text.find('=');
  const auto colon = text.find(':', equals == std::string_view::npos ? 0 : equals);
  if (equals == std::string_view::npos || colon == std::string_view::npos) {
    throw PackageError(std::string(source) + ": entry point '" + std::string(text) +
                       "' is not of the form 'command = module:function'");
  }
  EntryPoint entry;
  entry.command = std::string(util::trim(text.substr(0, equals)));
  entry.module = std::string(util::trim(text.substr(equals + 1, colon - equals - 1)));
  entry.function = std::string(util::trim(text.substr(colon + 1)));
  // setuptools allows "module:function [extra]"; the extras do not matter here.
  if (const auto bracket = entry.function.find('['); bracket != std::string::npos) {
    entry.function = std::string(util::trim(std::string_view(entry.function).substr(0, bracket)));
  }
  if (!is_plain_file_name(entry.command) || entry.module.empty() || entry.function.empty()) {
    throw PackageError(std::string(source) + ": entry point '" + std::string(text) +
                       "' needs a command that is a plain file name, a module and a function");
  }
  return entry;
}

LinkJson parse_link_json(std::string_view text, std::string_view source) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw PackageError(std::string(source) + " is not valid JSON (" + error.what() +
                       "); the package is damaged");
  }
  LinkJson link;
  if (!json.is_object()) return link;
  const auto noarch = json.find("noarch");
  if (noarch == json.end() || !noarch->is_object()) return link;
  if (const auto type = noarch->find("type"); type != noarch->end() && type->is_string()) {
    link.noarch = specs::parse_noarch(type->get<std::string>());
  }
  if (const auto points = noarch->find("entry_points");
      points != noarch->end() && points->is_array()) {
    for (const auto& point : *points) {
      if (point.is_string()) link.entry_points.push_back(parse_entry_point(point.get<std::string>(), source));
    }
  }
  return link;
}

std::string link_json_text(const LinkJson& link) {
  nlohmann::json noarch = {{"type", specs::to_string(link.noarch)}};
  if (link.noarch == specs::NoarchType::python) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& entry : link.entry_points) {
      points.push_back(entry.command + " = " + entry.module + ":" + entry.function);
    }
    noarch["entry_points"] = std::move(points);
  }
  return nlohmann::json{{"noarch", std::move(noarch)}, {"package_metadata_version", 1}}.dump(2);
}

}  // namespace gpuenv::package
