// toml++ is used header-only: gpuenv links no TOML library at run time.
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include "gpuenv/generator/pyproject_toml.hpp"

#include <toml++/toml.h>

#include <sstream>

namespace gpuenv::generate {
namespace {

constexpr std::size_t max_pyproject_bytes = 1 << 20;

std::expected<std::vector<std::string>, std::string> strings_of(const toml::node* node, const char* key) {
  std::vector<std::string> values;
  if (node == nullptr) return values;
  const auto* array = node->as_array();
  if (array == nullptr) return std::unexpected(std::string(key) + " is not an array");
  for (const auto& element : *array) {
    const auto* text = element.as_string();
    if (text == nullptr) return std::unexpected(std::string(key) + " holds something that is not a string");
    values.push_back(text->get());
  }
  return values;
}

}  // namespace

std::expected<PyprojectInfo, std::string> parse_pyproject(std::string_view text) {
  if (text.size() > max_pyproject_bytes) return std::unexpected(std::string("pyproject.toml is larger than 1 MiB"));
  auto parsed = toml::parse(text, std::string_view("pyproject.toml"));
  if (!parsed) {
    std::ostringstream where;
    where << parsed.error().source().begin;
    return std::unexpected("pyproject.toml is not valid TOML: " + std::string(parsed.error().description()) + " (at " +
                           where.str() + ")");
  }
  const auto& table = parsed.table();
  PyprojectInfo info;
  if (const auto* build = table["build-system"].as_table()) {
    info.has_build_system = true;
    auto requires_list = strings_of(build->get("requires"), "[build-system] requires");
    if (!requires_list) return std::unexpected(requires_list.error());
    info.build_requires = std::move(*requires_list);
    info.in_tree_backend = build->get("backend-path") != nullptr;
    if (const auto* backend = build->get("build-backend")) {
      if (!backend->is_string()) return std::unexpected(std::string("[build-system] build-backend is not a string"));
      info.build_backend = backend->as_string()->get();
    }
  }
  if (const auto* project = table["project"].as_table()) {
    info.has_project = true;
    auto dependencies = strings_of(project->get("dependencies"), "[project] dependencies");
    if (!dependencies) return std::unexpected(dependencies.error());
    info.dependencies = std::move(*dependencies);
    auto dynamic = strings_of(project->get("dynamic"), "[project] dynamic");
    if (!dynamic) return std::unexpected(dynamic.error());
    info.dynamic = std::move(*dynamic);
    if (const auto* requires_python = project->get("requires-python"); requires_python && requires_python->is_string()) {
      info.requires_python = requires_python->as_string()->get();
    }
    if (const auto* license = project->get("license"); license && license->is_string()) {
      info.license_expression = license->as_string()->get();
    }
    if (const auto* scripts = project->get("scripts")) {
      const auto* entries = scripts->as_table();
      if (entries == nullptr) return std::unexpected(std::string("[project.scripts] is not a table"));
      for (const auto& [name, target] : *entries) {
        if (!target.is_string()) return std::unexpected("[project.scripts] " + std::string(name.str()) + " is not a string");
        info.scripts.emplace_back(std::string(name.str()), target.as_string()->get());
      }
    }
  }
  return info;
}

}  // namespace gpuenv::generate
