// Where noarch: python packages go in a prefix (CEP 17, CEP 20): their
// site-packages/ and python-scripts/ move to the environment's python, and
// their entry points become scripts that run that python.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gpuenv/package/link_json.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::prefix {

struct PythonLayout {
  std::string version;        // "3.12"
  std::string site_packages;  // relative: "lib/python3.12/site-packages"
  std::string executable;     // relative: "bin/python3.12"
};

// The layout of the python package `python`: its python_site_packages_path
// when the record has one (CEP 17), else lib/pythonX.Y/site-packages.
// nullopt when the version has no major.minor.
std::optional<PythonLayout> python_layout_of(const specs::PackageRecord& python);

// Where a noarch: python package's path goes: site-packages/x ->
// <site-packages>/x, python-scripts/x -> bin/x, anything else unchanged.
std::string noarch_python_target(std::string_view path, const PythonLayout& python);

// The text of an entry point script for `python_path` (absolute), conda's
// template: a too-long or space-holding interpreter path gets the
// `#!/bin/sh` + exec trampoline conda uses instead of a shebang that Linux
// would cut short.
std::string entry_point_script(const package::EntryPoint& entry, std::string_view python_path);

}  // namespace gpuenv::prefix
