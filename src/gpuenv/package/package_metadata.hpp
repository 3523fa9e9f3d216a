// The info/ metadata a package carries, read from a package file (without
// extracting it) or from an extracted package directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "gpuenv/package/link_json.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::package {

struct PackageMetadata {
  specs::PackageRecord index;  // info/index.json
  PathsJson paths;             // info/paths.json, or built from info/files
  LinkJson link;               // info/link.json; default when absent
};

// Reads info/index.json, info/paths.json (or the legacy info/files,
// info/has_prefix, info/no_link) and info/link.json from a .conda or
// .tar.bz2 file. Only a .conda's info member is decompressed. Throws
// PackageError for unreadable archives and missing or invalid metadata.
PackageMetadata read_package_metadata(const std::filesystem::path& archive);

// The same from an extracted package directory (a package cache entry).
PackageMetadata read_extracted_metadata(const std::filesystem::path& package_dir);

// Whether `path` ("info/index.json") is one of the files the two above read.
bool is_metadata_file(std::string_view path);
// The same from those files' contents, keyed by path, as extraction kept
// them; `where` names the package in errors.
PackageMetadata metadata_from_info_files(const std::map<std::string, std::string>& files,
                                         const std::string& where);

// Selected files under info/ of a package file, by their path in the
// package ("info/about.json"); files the package lacks are absent. A
// selected file larger than `max_file_size` is refused (PackageError) before
// any of it is read: callers that only need small files (a channel indexer
// reading index.json) bound them tighter than the 256 MiB default, which a
// huge package's paths.json needs.
inline constexpr std::uint64_t kMaxInfoFileSize = 256u << 20;
std::map<std::string, std::string> read_info_files(const std::filesystem::path& archive,
                                                   const std::vector<std::string>& names,
                                                   std::uint64_t max_file_size = kMaxInfoFileSize);

}  // namespace gpuenv::package
