// Internal to the solver module (includes libsolv): a channel repo kept in
// libsolv's own .solv format, so that loading an unchanged repodata.json
// again skips the JSON entirely (mamba keeps the same kind of cache).
//
// The file name binds the cache to its source: a hash of the subdir URL and
// the JSON's path, then a hash of the JSON's size and modification time,
// the parse options and the cache format. A changed repodata.json (the
// fetcher renames a new one into place) therefore simply has no cache file
// yet; the old one is deleted when the new one is written.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "gpuenv/solver/pool_state.hpp"

namespace gpuenv::solver {

struct SolvCacheEntry {
  std::filesystem::path file;
  // The per-name index of the same JSON (repodata_index.hpp), named and
  // invalidated the same way; `index_stamp` is what it must carry.
  std::filesystem::path index_file;
  std::string index_stamp;
  std::string source_path;
  std::uint64_t source_size = 0;
  std::int64_t source_mtime_ns = 0;
  bool only_tar_bz2 = false;
};

// nullopt when the JSON cannot be stat'ed (then it cannot be parsed either,
// and the parser reports why).
std::optional<SolvCacheEntry> solv_cache_entry(const std::filesystem::path& cache_dir,
                                               const std::filesystem::path& repodata_json,
                                               const ChannelSubdir& source, bool only_tar_bz2);

// Loads the cache into the empty `repo`. On failure the repo is left empty
// and the error says why (missing, written by another gpuenv, unreadable).
std::expected<void, std::string> read_solv_cache(PoolState& state, Repo* repo,
                                                 const SolvCacheEntry& entry);

// Removes the caches of earlier versions of the same source that end in
// `extension` (".solv", ".index"), keeping `current`.
void remove_stale_caches(const std::filesystem::path& current, std::string_view extension);

// Stamps `repo` (internalized, freshly parsed) with the entry's facts and
// writes it atomically; removes older caches of the same source.
std::expected<void, std::string> write_solv_cache(PoolState& state, Repo* repo,
                                                  const SolvCacheEntry& entry);

}  // namespace gpuenv::solver
