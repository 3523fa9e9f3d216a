#include "gpuenv/repodata/retry_policy.hpp"

#include <algorithm>

namespace gpuenv::repodata {

bool RetryPolicy::is_transient(const HttpResponse& response) {
  switch (response.failure) {
    case TransportFailure::timed_out:
    case TransportFailure::connection_lost:
    case TransportFailure::truncated:
      return true;
    case TransportFailure::none:
      break;
    default:
      return false;
  }
  const long status = response.status;
  return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

std::chrono::milliseconds RetryPolicy::delay_after(int attempts_made) const {
  auto delay = backoff;
  const auto cap = std::max(backoff, max_backoff);
  for (int i = 1; i < attempts_made && delay < cap; ++i) delay *= 2;
  return std::min(delay, cap);
}

}  // namespace gpuenv::repodata
