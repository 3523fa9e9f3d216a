// The CEP 16 fetch process: each subdir's shard index (revalidated like
// repodata.json: ETag / Last-Modified, 304), then only the shards of the
// names a request can reach -- its own names, then, as each shard arrives,
// the names its records depend on -- downloaded in parallel over one
// net::HttpClient, checked against their sha256 and cached forever (their
// name is their content's hash). The records reached are written out per
// subdir as a repodata.json, which the loader reads like any other.
//
// A subdir without an index (404) is left to repodata.json; so is every
// subdir when a dependency names a pattern (`py*`), whose names cannot be
// known without reading every shard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/repodata/shard_format.hpp"

namespace gpuenv::repodata {

struct ShardedFetchRequest {
  std::vector<RepodataRequest> subdirs;  // URLs with their credentials, as for fetch_repodata
  std::vector<std::string> root_names;   // the request's package names
  bool follow_dependencies = true;       // false: only the root names (a search)
  // The package a dependency string names ("numpy >=1.21" -> "numpy"):
  // nullopt for a pattern that may match any name, "" for none.
  std::function<std::optional<std::string>(std::string_view)> dependency_name;
  ShardLimits limits;
};

struct ShardedSubdir {
  std::filesystem::path json;  // the reached records, as repodata.json
  std::string source_url;      // the shard index's URL (secrets masked) or path
};

struct ShardedFetchStats {
  std::size_t indexes_downloaded = 0;
  std::size_t indexes_not_modified = 0;  // 304
  std::size_t shards_downloaded = 0;
  std::size_t shards_cached = 0;  // read from the cache or a local channel
  std::uint64_t bytes_downloaded = 0;
  std::size_t names = 0;    // names reached
  std::size_t records = 0;  // records written
  bool closure_reused = false;  // same indexes, same request: no shard was read
};

struct ShardedFetchResult {
  // Per request, in order; nullopt: the subdir has no shards (use repodata.json).
  std::vector<std::optional<ShardedSubdir>> subdirs;
  // A dependency names a pattern: use repodata.json everywhere.
  bool needs_everything = false;
  ShardedFetchStats stats;
};

// options.cache_dir must be set: shards and the closure live under
// <cache_dir>/shards. Fails with a message naming the channel, subdir and
// shard when an index or shard is unusable, a download fails, or (offline)
// a needed shard is not cached.
std::expected<ShardedFetchResult, FetchError> fetch_sharded(const ShardedFetchRequest& request,
                                                            const FetchOptions& options);

}  // namespace gpuenv::repodata
