// Fetching many packages into the package cache at once: downloads run in
// parallel on one libcurl thread while worker threads verify and extract
// the packages that have arrived, and the caller takes the results in its
// own order as each becomes ready -- so a transaction links the first
// package while later ones are still downloading.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/package/downloader.hpp"
#include "gpuenv/prefix/file_lock.hpp"
#include "gpuenv/prefix/package_cache.hpp"
#include "gpuenv/util/thread_pool.hpp"

namespace gpuenv::prefix {

class FetchBatch {
 public:
  // Starts fetching every record at once. `cache` must outlive the batch.
  FetchBatch(const PackageCache& cache, std::vector<specs::PackageRecord> records);
  // Cancels downloads not yet finished and waits for running work.
  ~FetchBatch();
  FetchBatch(const FetchBatch&) = delete;
  FetchBatch& operator=(const FetchBatch&) = delete;

  std::size_t size() const noexcept { return slots_.size(); }

  // Waits until record `index` is in the cache; throws PrefixError with the
  // reason when its fetch failed.
  const CachedPackage& wait(std::size_t index);

  // Waits for all; the first failure (in record order) is thrown.
  void wait_all();

  // Frees what record `index`'s package kept in memory for linking
  // (CachedPackage::kept), once it is linked.
  void drop_kept(std::size_t index);

 private:
  struct Slot {
    specs::PackageRecord record;
    std::optional<FileLock> lock;  // held from the first look until extracted
    std::optional<package::DownloadRequest> request;
    std::optional<CachedPackage> package;
    std::string error;
    bool done = false;
  };

  void start(std::size_t index);
  void downloaded(std::size_t index, package::DownloadResult result);
  void extract(std::size_t index, const package::FileDigests& digests);
  void finish(std::size_t index, std::optional<CachedPackage> package, std::string error);
  void submit_download(std::size_t index);

  const PackageCache& cache_;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool cancelled_ = false;  // guarded by mutex_
  // Declared so that the downloader (whose completions queue work on the
  // pool) is destroyed before the pool.
  std::unique_ptr<util::ThreadPool> pool_;
  std::unique_ptr<package::Downloader> downloader_;  // created for the first HTTP fetch
};

}  // namespace gpuenv::prefix
