#include "gpuenv/repodata/file_growth.hpp"

#include <algorithm>

namespace gpuenv::repodata {

void FileGrowth::grew(std::uint64_t size) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (seen_.complete || seen_.abandoned || size <= seen_.size) return;
    seen_.size = size;
    // A download grows in ~128 KiB steps: wake the reader only once what it
    // waits for is there, not at every step.
    wake = waiting_for_ != 0 && size >= waiting_for_;
  }
  if (wake) changed_.notify_all();
}

void FileGrowth::completed(std::uint64_t size) {
  {
    std::lock_guard lock(mutex_);
    if (seen_.complete || seen_.abandoned) return;
    seen_.size = std::max(seen_.size, size);
    seen_.complete = true;
  }
  changed_.notify_all();
}

void FileGrowth::abandoned() {
  {
    std::lock_guard lock(mutex_);
    if (seen_.complete || seen_.abandoned) return;
    seen_.abandoned = true;
  }
  changed_.notify_all();
}

FileGrowth::Seen FileGrowth::wait_for(std::uint64_t wanted) {
  std::unique_lock lock(mutex_);
  waiting_for_ = std::max<std::uint64_t>(wanted, 1);
  changed_.wait(lock, [&] { return seen_.size >= wanted || seen_.complete || seen_.abandoned; });
  waiting_for_ = 0;
  return seen_;
}

FileGrowth::Seen FileGrowth::now() {
  std::lock_guard lock(mutex_);
  return seen_;
}

}  // namespace gpuenv::repodata
