// Many HTTP(S) transfers at once over one libcurl multi handle, driven from
// the calling thread, each set up by net::configure_transfer (TLS, proxies,
// redirects, stall timeout, user agent). Completions run on that thread too and may queue
// follow-up transfers (a fallback URL, a retry after a delay), which is how
// the repodata fetch builds its per-subdir state machines on top of this.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/net/transfer_policy.hpp"

namespace gpuenv::net {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // whole lines: "If-None-Match: \"abc\""
  // Gets the body of a 2xx response piece by piece as it arrives (bodies of
  // error responses are not passed on). Returning false aborts the transfer.
  std::function<bool(std::string_view)> on_body;
};

struct HttpResponse {
  TransportFailure failure = TransportFailure::none;
  std::string failure_detail;  // libcurl's explanation when failure != none
  long status = 0;             // 0 when no response arrived at all
  std::string etag;
  std::string last_modified;
  std::string cache_control;
  std::optional<std::uint64_t> content_length;
  std::uint64_t body_bytes = 0;  // as received, before any Content-Encoding is undone
  std::string error_body;        // the start of a 4xx/5xx body, for messages

  bool completed() const { return failure == TransportFailure::none; }
};

struct HttpClientOptions {
  ClientSettings settings;
  std::size_t max_parallel = 16;
};

class HttpClient {
 public:
  using Completion = std::function<void(HttpResponse)>;

  explicit HttpClient(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Queues a transfer that starts no earlier than `not_before` (a retry's
  // backoff) once fewer than max_parallel transfers are running.
  void submit(HttpRequest request, Completion on_complete,
              std::chrono::steady_clock::time_point not_before = {});

  // Runs the queued transfers until none is left, including any queued by
  // completions while it runs.
  void run();

 private:
  struct Transfer;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuenv::net
