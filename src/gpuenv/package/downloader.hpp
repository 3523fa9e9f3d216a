// Downloading package files: many at once over one libcurl multi handle on
// a thread of its own, each transfer set up by net::configure_transfer (TLS,
// proxies, redirects, stall timeout, user agent), each written straight to its destination and hashed
// as the bytes arrive, so verifying a download costs no second read.
//
// file:// URLs (net::is_file_url) are copied (and hashed) by
// `copy_local_package` instead: on a
// local disk a plain read/write loop is faster than libcurl's file protocol
// and can run on the caller's worker threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/net/retry_policy.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::package {

struct DownloadRequest {
  std::string url;
  std::filesystem::path destination;  // created or truncated
  bool want_sha256 = true;
  bool want_md5 = false;
  // When known, a body larger than this is cut off at once (a wrong or
  // hostile server cannot fill the disk).
  std::optional<std::uint64_t> expected_size;
};

struct DownloadResult {
  // Empty on success; otherwise what went wrong, naming the URL (its
  // credentials masked), in words.
  std::string error;
  FileDigests digests;  // of the bytes written; valid on success
  long http_status = 0;  // 0 for transports without one

  bool ok() const { return error.empty(); }
};

struct DownloaderOptions {
  std::size_t max_parallel = 8;
  // TLS, proxies, the stall timeout and the user agent: the same value the
  // repodata fetch uses (net::client_settings_from).
  net::ClientSettings client;
  // Further attempts after a connection failure, a truncated body or a 5xx
  // or 429 answer; 4xx answers are final.
  net::RetryPolicy retry{.max_retries = 2, .backoff = std::chrono::milliseconds(250)};
  // The private channels of this run: a download from one's origin carries
  // its token and Basic auth (request URLs never hold them, so messages and
  // records cannot leak them); other hosts get none.
  std::vector<specs::ChannelCredentials> channel_credentials;
};

class Downloader {
 public:
  using Completion = std::function<void(DownloadResult)>;

  explicit Downloader(DownloaderOptions options = {});
  // Stops transfers still running (their completions get an error) and
  // joins the transfer thread.
  ~Downloader();
  Downloader(const Downloader&) = delete;
  Downloader& operator=(const Downloader&) = delete;

  // Thread-safe. `done` runs on the transfer thread: keep it short (queue
  // the follow-up work elsewhere).
  void submit(DownloadRequest request, Completion done);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Copies the local file request.url (a file:// URL) names to `destination`,
// hashing it on the way. The result's error names the source when it cannot
// be read, or says why the URL names no local file (another host).
DownloadResult copy_local_package(const DownloadRequest& request);

}  // namespace gpuenv::package
