// Which failed requests are worth repeating, and how long to wait first:
// one policy for repodata fetches and package downloads.
#pragma once

#include <chrono>

#include "gpuenv/net/http_client.hpp"

namespace gpuenv::net {

struct RetryPolicy {
  int max_retries = 3;                          // repeats after the first attempt
  std::chrono::milliseconds backoff{500};       // wait before the first repeat; doubles after
  std::chrono::milliseconds max_backoff{30'000};  // the doubling stops here

  // Transient failures: the same request may well succeed a moment later
  // (server errors, rate limits, timeouts, dropped connections). A 404, a
  // TLS failure or a malformed body will not change by asking again.
  static bool is_transient(TransportFailure failure, long status);
  static bool is_transient(const HttpResponse& response) { return is_transient(response.failure, response.status); }

  // Whether attempt number `attempts_made` + 1 is allowed.
  bool may_retry(int attempts_made) const { return attempts_made <= max_retries; }

  // The wait before the repeat that follows attempt `attempts_made` (1-based).
  std::chrono::milliseconds delay_after(int attempts_made) const;
};

}  // namespace gpuenv::net
