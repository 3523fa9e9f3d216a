// What a repodata fetch tells whoever shows progress: each subdir that is
// downloaded (not those answered from the cache or read in place), the bytes
// as they arrive, and how it ended. The library draws nothing itself; the
// CLI's implementation draws a status line on a terminal. All calls come
// from the thread that called fetch_repodata.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuenv::repodata {

class FetchObserver {
 public:
  virtual ~FetchObserver() = default;
  // A subdir's download begins ("conda-forge/linux-64"); returns the id the
  // calls below name it by.
  virtual std::size_t subdir_started(std::string label) {
    (void)label;
    return 0;
  }
  virtual void subdir_received(std::size_t id, std::uint64_t bytes) {
    (void)id;
    (void)bytes;
  }
  // "12.4 MB downloaded", "not modified", "failed".
  virtual void subdir_finished(std::size_t id, std::string_view outcome) {
    (void)id;
    (void)outcome;
  }
};

// "1.5 MB", "320 kB", "12 B" (decimal units, as conda and mamba print them).
std::string format_bytes(std::uint64_t bytes);

}  // namespace gpuenv::repodata
