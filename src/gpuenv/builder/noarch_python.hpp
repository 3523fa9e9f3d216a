// The noarch: python layout of a built package (CEP 20, as conda-build and
// rattler-build write it): what the script installed under
// lib/pythonX.Y/site-packages/ goes to site-packages/, bin/ to
// python-scripts/, compiled bytecode (*.pyc, __pycache__/) is left out (the
// installer compiles for the environment's python), and the recipe's
// build.python.entry_points are listed in info/link.json -- the installer
// (prefix/python_layout.hpp) writes their scripts, so scripts of the same
// names the build left in bin/ are dropped.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/new_prefix_files.hpp"
#include "gpuenv/package/package_writer.hpp"

namespace gpuenv::build {

// Rewrites `files` in place into the noarch: python layout.
void apply_noarch_python_layout(std::vector<NewPrefixFile>& files, const std::vector<std::string>& entry_points);

// info/link.json for a noarch: python package; a malformed entry point
// ("name = module:function") is an error naming it.
std::expected<package::PackageMember, BuildError> noarch_python_link_json(const std::vector<std::string>& entry_points,
                                                                          std::int64_t mtime);

}  // namespace gpuenv::build
