// about.license_file: the license texts a package carries in
// info/licenses/, as conda-build and rattler-build put them there. Each
// entry is a path or a glob, relative to the source directory (searched
// first: where upstream keeps its LICENSE) or else the recipe directory
// (where a maintainer adds one upstream lacks); a directory entry brings
// every file under it. The path under info/licenses/ is the one written in
// the recipe.
//
// Recipe text is outside input: an entry may not be absolute or climb out
// with "..", and a file reached through a symbolic link must still lie in
// its directory.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"

namespace gpuenv::build {

struct LicenseFile {
  std::string relative;                 // under info/licenses/
  std::filesystem::path source;         // the file on disk
};

// Every entry must match at least one file, else the error names the entry
// and both directories searched.
std::expected<std::vector<LicenseFile>, BuildError> collect_license_files(const std::vector<std::string>& entries,
                                                                          const std::filesystem::path& src_dir,
                                                                          const std::filesystem::path& recipe_dir);

}  // namespace gpuenv::build
