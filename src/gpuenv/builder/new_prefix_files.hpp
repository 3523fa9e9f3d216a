// What a build installed: the files and symbolic links the script added to
// the host prefix (listed before and after it ran), each with its
// paths.json entry -- sha256, size, and whether it holds the host prefix,
// as text (no NUL byte in it: replaced on install at any length) or as
// binary (replaced padded with NULs) -- the prefix_detection settings
// applied (ignore, ignore_binary_files, force_text, force_binary; globs).
#pragma once

#include <expected>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::build {

// Relative paths of the files and links under `prefix`, conda-meta/ left out.
std::set<std::string> prefix_listing(const std::filesystem::path& prefix);

struct NewPrefixFile {
  std::filesystem::path source;  // where it is now
  package::PathEntry entry;
  unsigned mode = 0644;
  std::string link_target;  // symbolic links
};

// The entries of `prefix` not in `before`, sorted by path; a .pyc whose .py
// is in `before` (bytecode of an earlier package's module, written while
// the script ran it) is not one of them.
// Whether `path` is such bytecode: pkg/__pycache__/m.cpython-313.pyc or
// pkg/m.pyc with pkg/m.py in `before`.
bool bytecode_of_an_earlier_file(const std::string& path, const std::set<std::string>& before);

std::expected<std::vector<NewPrefixFile>, BuildError> new_prefix_files(const std::filesystem::path& prefix,
                                                                       const std::set<std::string>& before,
                                                                       const recipe::PrefixDetection& detection);

}  // namespace gpuenv::build
