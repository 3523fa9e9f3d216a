// Fetching channel repodata: for each <channel>/<subdir>/ the decompressed
// repodata.json on local disk, downloaded in parallel, revalidated with
// conditional requests and kept in a cache, the way conda, mamba and
// rattler's repodata gateway do it. Parsing the JSON is repodata::load's job.
#pragma once

#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/net/retry_policy.hpp"
#include "gpuenv/repodata/fetch_observer.hpp"
#include "gpuenv/repodata/file_growth.hpp"

namespace gpuenv::repodata {

struct RepodataRequest {
  // The subdir: "https://conda.anaconda.org/conda-forge/linux-64/",
  // "file:///srv/channel/noarch/" or a plain path "/srv/channel/noarch".
  std::string url;
  std::string channel_display_name;  // "conda-forge": for messages and progress
};

// A repodata.json that a download has begun to write into the cache: what a
// reader needs to parse it while it arrives (the solver's index build).
struct JsonDownload {
  std::string label;                // the URL being downloaded, credentials masked
  std::filesystem::path json_path;  // the cache entry it becomes if the download succeeds
  std::filesystem::path temp_path;  // the file being written, there to be opened now
  std::shared_ptr<FileGrowth> growth;
};

struct FetchOptions {
  std::filesystem::path cache_dir;
  // Use the cache only; a subdir that is not cached is an error. Local
  // channels are still read (they need no network).
  bool offline = false;
  // TLS, proxies, the stall timeout and the user agent (one value for the
  // whole run, net::client_settings_from).
  net::ClientSettings client;
  net::RetryPolicy retry;                // repeats of a transiently failed request
  std::size_t max_parallel = 16;         // transfers in flight at once
  // Use a cached copy without asking the server while it is younger than
  // this. nullopt: follow the server's Cache-Control max-age (conda's and
  // mamba's default); 0: always revalidate (conditional requests are cheap).
  std::optional<std::chrono::seconds> ttl;
  // Subdir URLs whose cached shard index this process found current a
  // moment ago (a revalidation alongside, channel_gateway.cpp): used
  // without asking again.
  std::vector<std::string> just_revalidated;
  // Told about each download as it goes (progress displays); null: nobody.
  FetchObserver* observer = nullptr;
  // Called on the fetching thread as each repodata.json download begins to
  // write (again for a retry, whose earlier growth is then abandoned); must
  // return at once. Whether the download succeeded is the fetch's result.
  std::function<void(const JsonDownload&)> on_json_download;
};

enum class RepodataOrigin {
  downloaded,    // a new copy arrived (200) and is now cached
  not_modified,  // the server answered 304: the cached copy is current
  cache,         // used from the cache without asking (fresh, or offline)
  local,         // a local channel: its repodata.json used in place, or its
                 // repodata.json.zst decompressed into the cache
};

struct FetchedRepodata {
  std::filesystem::path json_path;  // decompressed repodata.json to parse
  RepodataOrigin origin = RepodataOrigin::downloaded;
  // Where the data came from: ".../repodata.json.zst" or ".../repodata.json",
  // its credentials masked.
  std::string source_url;
};

enum class FetchErrorKind {
  invalid_location,  // not a URL or path gpuenv can fetch from
  not_found,         // 404/410, or a local subdir without repodata
  http_status,       // another error status (401, 403, 5xx after retries, ...)
  network,           // timeouts, resets, DNS, TLS (after retries)
  invalid_body,      // the server sent something that is not complete repodata
  not_cached,        // offline, and the subdir was never downloaded
  cache_io,          // the cache directory could not be written
};

struct FetchError {
  FetchErrorKind kind = FetchErrorKind::network;
  std::string url;      // the URL (or path) that failed
  std::string channel;  // its channel's display name
  std::string message;  // the whole story, ready to show: what failed, why, what to do
};

using FetchResult = std::expected<FetchedRepodata, FetchError>;

// One result per request, in request order; one subdir failing never stops
// the others. Requests naming the same subdir are fetched once.
std::vector<FetchResult> fetch_repodata(const std::vector<RepodataRequest>& requests,
                                        const FetchOptions& options);

}  // namespace gpuenv::repodata
