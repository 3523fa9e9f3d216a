// Checking a package's files against what its info/paths.json says about
// them (sha256, size_in_bytes), as conda's safety_checks do. Extraction
// hashes every file while writing it, so a fresh cache entry is verified
// for free; an entry extracted by another tool is verified from disk once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/package/paths_json.hpp"

namespace gpuenv::package {

// What is really in a file.
struct FileFacts {
  std::string sha256;
  std::uint64_t size = 0;
};

// A file whose content is not what paths.json declares.
struct FileMismatch {
  std::string path;
  std::string declared_sha256;                 // empty: not declared
  std::optional<std::uint64_t> declared_size;  // absent: not declared
  FileFacts actual;

  bool wrong_size() const { return declared_size && *declared_size != actual.size; }
  friend bool operator==(const FileMismatch&, const FileMismatch&) = default;
};

// Empty when `actual` agrees with what `entry` declares. Only regular
// files (path_type hardlink) are checked; a declared size of 0 is no
// declaration (conda skips it too), an empty sha256 neither.
std::optional<FileMismatch> compare_with_declared(const PathEntry& entry, const FileFacts& actual);

// Hashes the regular files `paths` lists under `package_dir` and returns
// those that differ from their declaration. Missing files are not
// mismatches (linking reports them). Throws PackageError when a file
// cannot be read.
std::vector<FileMismatch> verify_extracted_files(const std::filesystem::path& package_dir,
                                                 const PathsJson& paths);

// conda's SafetyError text for one mismatch ("The package for <name> located
// at <dir> appears to be corrupted. The path '<path>' has an incorrect size.
// ...").
std::string describe_mismatch(const FileMismatch& mismatch, const std::string& package_name,
                              const std::string& package_dir);

}  // namespace gpuenv::package
