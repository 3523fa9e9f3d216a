// How much of a file that another thread is still writing exists so far:
// lets a reader parse a download while it arrives (repodata_stream's growing
// mode) instead of after it. The writer says how far it got and, at the end,
// whether the file is complete or abandoned (a failed or retried download);
// the reader waits for the bytes it needs or for that end.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace gpuenv::repodata {

class FileGrowth {
 public:
  struct Seen {
    std::uint64_t size = 0;  // bytes written so far
    bool complete = false;   // `size` is the whole file
    bool abandoned = false;  // the file will never be complete: stop reading
  };

  // Writer side. A size never shrinks; after completed() or abandoned()
  // nothing changes any more (the first of the two wins).
  void grew(std::uint64_t size);
  void completed(std::uint64_t size);
  void abandoned();

  // Reader side: returns once at least `wanted` bytes exist, or the file is
  // complete or abandoned.
  Seen wait_for(std::uint64_t wanted);
  Seen now();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  Seen seen_;
  std::uint64_t waiting_for_ = 0;  // 0: no reader waits
};

}  // namespace gpuenv::repodata
