// What a recipe needs from an sdist's pyproject.toml (PEP 517, 518, 621):
// the build backend and its requirements, and the [project] table where the
// sdist's PKG-INFO does not say (console scripts, dependencies of an old
// setuptools sdist).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuenv::generate {

struct PyprojectInfo {
  bool has_build_system = false;
  std::vector<std::string> build_requires;  // [build-system] requires, PEP 508
  std::string build_backend;                // [build-system] build-backend ("" : setuptools' legacy default)
  bool in_tree_backend = false;             // [build-system] backend-path: the package builds itself (hatchling, flit-core)
  bool has_project = false;
  std::vector<std::string> dependencies;    // [project] dependencies
  std::vector<std::string> dynamic;         // [project] dynamic
  std::string requires_python;
  std::vector<std::pair<std::string, std::string>> scripts;  // [project.scripts]: name -> "module:function"
  std::string license_expression;           // [project] license as a string (PEP 639)
};

// Errors: not TOML (the parser's message and position), larger than 1 MiB,
// a known key of the wrong type.
std::expected<PyprojectInfo, std::string> parse_pyproject(std::string_view text);

}  // namespace gpuenv::generate
