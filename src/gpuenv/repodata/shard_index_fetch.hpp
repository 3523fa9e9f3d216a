// The first step of the CEP 16 fetch: each subdir's shard index
// (<subdir>/repodata_shards.msgpack.zst), from a local channel in place or
// over HTTP through the shard cache -- used without asking while fresh
// (Cache-Control max-age, or FetchOptions::ttl), else revalidated with its
// ETag / Last-Modified (304 keeps the cached copy). A 404 means the subdir
// has no shards. Also the bounded whole-body download the shard fetch uses.
#pragma once

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/net/http_client.hpp"
#include "gpuenv/net/retry_policy.hpp"
#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/repodata/shard_cache.hpp"
#include "gpuenv/repodata/subdir_location.hpp"

namespace gpuenv::repodata {

// Fetches `url` into memory: at most `max_bytes` of body, transient
// failures retried after the policy's backoff. `done` runs once, on the
// client's thread, with the last response and its body (empty unless 2xx).
struct BoundedDownloadResult {
  net::HttpResponse response;
  std::string body;
  bool too_large = false;
  int attempts = 0;
};
void start_bounded_download(net::HttpClient& client, std::string url, std::vector<std::string> headers,
                            std::size_t max_bytes, net::RetryPolicy retry,
                            std::function<void(BoundedDownloadResult)> done);

struct ShardIndexSource {
  SubdirLocation location;  // its url() carries the channel's credentials
  std::string channel;      // display name
};

struct FetchedShardIndex {
  std::string bytes;        // compressed, unchecked: the caller parses it
  std::string version;      // changes whenever the index does
  std::string source_url;   // masked URL, or the local path
  bool downloaded = false;
  bool not_modified = false;
};

// Per source, in order: the index, nullopt when the subdir has none (or,
// offline, none is cached), or why it could not be had.
using ShardIndexOutcome = std::expected<std::optional<FetchedShardIndex>, FetchError>;
std::vector<ShardIndexOutcome> fetch_shard_indexes(const std::vector<ShardIndexSource>& sources,
                                                   const ShardCache& cache, const FetchOptions& options,
                                                   std::size_t max_bytes, net::HttpClient& client);

// Whether each source's cached index is still what the server has, asked
// without touching the cache (which another thread may be reading): current
// when fresh (Cache-Control max-age, FetchOptions::ttl) or answered with a
// 304; not current when the server has a new one, the request failed, or
// nothing is cached to ask with. `refreshed`: after a 304, the state to
// record once the caller may write the cache (ShardCache::write_index_state).
struct CachedIndexCheck {
  bool current = false;
  std::optional<RepodataState> refreshed;
};
std::vector<CachedIndexCheck> revalidate_cached_shard_indexes(const std::vector<ShardIndexSource>& sources,
                                                              const ShardCache& cache, const FetchOptions& options,
                                                              std::size_t max_bytes, net::HttpClient& client);

}  // namespace gpuenv::repodata
