#include "gpuenv/net/retry_policy.hpp"

#include <algorithm>

namespace gpuenv::net {

bool RetryPolicy::is_transient(TransportFailure failure, long status) {
  switch (failure) {
    case TransportFailure::timed_out:
    case TransportFailure::connection_lost:
    case TransportFailure::truncated:
      return true;
    case TransportFailure::none:
      break;
    default:
      return false;
  }
  return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

std::chrono::milliseconds RetryPolicy::delay_after(int attempts_made) const {
  auto delay = backoff;
  const auto cap = std::max(backoff, max_backoff);
  for (int i = 1; i < attempts_made && delay < cap; ++i) delay *= 2;
  return std::min(delay, cap);
}

}  // namespace gpuenv::net
