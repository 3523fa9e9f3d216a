// A fixed set of worker threads taking tasks from one queue.
//
// The package pipeline uses it to extract and verify several packages at
// once while another thread downloads: on two cores, decompressing one
// package while the next is still arriving is where the time goes.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuenv::util {

class ThreadPool {
 public:
  // `threads` == 0 means one per hardware thread (at least one).
  explicit ThreadPool(std::size_t threads = 0);
  // Runs every task already queued, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task`. Tasks must not throw: a task reports its failure through
  // whatever result it fills in (an exception escaping a worker would end
  // the program).
  void submit(std::function<void()> task);

  std::size_t size() const noexcept { return workers_.size(); }

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace gpuenv::util
