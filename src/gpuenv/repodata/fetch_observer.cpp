#include "gpuenv/repodata/fetch_observer.hpp"

#include <fmt/format.h>

namespace gpuenv::repodata {

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1000) return fmt::format("{} B", bytes);
  const double value = static_cast<double>(bytes);
  if (bytes < 1000 * 1000) return fmt::format("{:.0f} kB", value / 1e3);
  if (bytes < 1000ull * 1000 * 1000) return fmt::format("{:.1f} MB", value / 1e6);
  return fmt::format("{:.2f} GB", value / 1e9);
}

}  // namespace gpuenv::repodata
