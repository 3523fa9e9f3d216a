// Internal to the channel index writer: what the last run learnt about each
// package file of a subdir, so that an unchanged archive is not read or
// hashed again. Kept in <subdir>/.cache/gpuenv-index.json (conda-index keeps
// its own cache.db in the same folder; the two do not meet).
//
// The cache lives inside the channel, so it is input like the packages: a
// file that is too large, not JSON, of another version, or an entry that
// does not hold a valid record is ignored (the archive is read again), never
// trusted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "gpuenv/repodata/indexed_package.hpp"

namespace gpuenv::repodata {

// What identifies one version of a package file: conda-index keys on the
// same (name, size, mtime); nanoseconds catch a rewrite within a second.
struct ArchiveStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  friend bool operator==(const ArchiveStamp&, const ArchiveStamp&) = default;
};

struct CachedPackage {
  ArchiveStamp stamp;
  IndexedPackage package;
};

using IndexCache = std::map<std::string, CachedPackage>;  // by file name

std::filesystem::path index_cache_path(const std::filesystem::path& subdir_dir);

// The entries of the subdir's cache that still hold a valid record for
// their file name; empty when there is no usable cache.
IndexCache load_index_cache(const std::filesystem::path& subdir_dir, std::string_view subdir);

// Writes the cache atomically; the error names the file.
std::optional<std::string> save_index_cache(const std::filesystem::path& subdir_dir, const IndexCache& cache);

}  // namespace gpuenv::repodata
