// The download of one remote subdir's repodata, as a small state machine
// driven by net::HttpClient completions:
//   repodata.json.zst (conditional when cached) --404--> repodata.json
//   transient failure --backoff--> same request again (bounded)
//   200 --checked body--> cache;  304 --> cached copy, refreshed state
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "gpuenv/repodata/body_writer.hpp"
#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/repodata/fetch_errors.hpp"
#include "gpuenv/repodata/fetch_observer.hpp"
#include "gpuenv/net/http_client.hpp"
#include "gpuenv/repodata/repodata_cache.hpp"
#include "gpuenv/net/retry_policy.hpp"
#include "gpuenv/repodata/subdir_location.hpp"

namespace gpuenv::repodata {

// After a 404 for repodata.json.zst, go straight to repodata.json for this
// long before asking for the .zst again (conda waits 7 days as well).
inline constexpr std::chrono::hours kZstRecheckInterval{24 * 7};

struct RemoteFetchContext {
  const RepodataCache& cache;
  const FetchOptions& options;
  net::HttpClient& client;
  FetchObserver& observer;
};

class RemoteSubdirFetch {
 public:
  RemoteSubdirFetch(SubdirLocation location, std::string channel, std::optional<CacheEntry> cached,
                    RemoteFetchContext context);
  RemoteSubdirFetch(const RemoteSubdirFetch&) = delete;  // completions point at this object
  RemoteSubdirFetch& operator=(const RemoteSubdirFetch&) = delete;

  // Queues the first request; the result is ready once the client's run()
  // returned.
  void start();
  const std::optional<FetchResult>& result() const { return result_; }

 private:
  void request(bool zst, std::chrono::steady_clock::time_point not_before);
  bool receive_body(std::string_view bytes);
  void on_response(net::HttpResponse response);
  void retry_after_backoff();
  void store_download(const net::HttpResponse& response);
  void keep_not_modified(const net::HttpResponse& response);
  void succeed(FetchedRepodata fetched, std::string_view outcome);
  void fail(FetchError error);
  FetchSubject subject() const;
  bool have_cached_state() const { return cached_ && cached_->state; }

  SubdirLocation location_;
  std::string channel_;
  std::optional<CacheEntry> cached_;
  RemoteFetchContext context_;
  net::RetryPolicy retry_;
  std::size_t progress_id_ = 0;

  bool zst_ = true;                  // asking for repodata.json.zst
  bool zst_found_missing_ = false;   // this run saw the .zst 404
  bool conditional_ = false;         // the current request carries validators
  int attempts_ = 0;                 // of the current URL
  std::unique_ptr<RepodataBodyWriter> writer_;  // the current attempt's body
  std::optional<std::string> cache_write_failure_;
  std::optional<FetchResult> result_;
};

}  // namespace gpuenv::repodata
