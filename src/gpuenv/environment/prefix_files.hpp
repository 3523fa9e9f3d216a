// The files of an environment, each with the package that owns it: what
// `gpuenv doctor`'s checks walk. Internal to the environment module.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gpuenv/prefix/prefix_record.hpp"

namespace gpuenv::environment::detail {

// "name-version-build"
std::string package_label(const prefix::PrefixRecord& record);

// relative path -> owning package, from `records`.
std::map<std::string, std::string> files_of_records(const std::vector<prefix::PrefixRecord>& records);

// The files `installed` lists or, when it lists none (a prefix not made by
// conda), every regular file under lib/ and bin/ with no owner.
std::map<std::string, std::string> files_of_prefix(const std::filesystem::path& prefix,
                                                   const prefix::InstalledPackages& installed);

}  // namespace gpuenv::environment::detail
