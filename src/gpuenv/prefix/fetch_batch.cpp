#include "gpuenv/prefix/fetch_batch.hpp"

#include <exception>

#include "gpuenv/net/file_url.hpp"
#include "gpuenv/prefix/prefix_error.hpp"

namespace gpuenv::prefix {

FetchBatch::FetchBatch(const PackageCache& cache, std::vector<specs::PackageRecord> records)
    : cache_(cache), slots_(records.size()) {
  for (std::size_t i = 0; i < records.size(); ++i) slots_[i].record = std::move(records[i]);
  pool_ = std::make_unique<util::ThreadPool>(cache.options().workers);
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    pool_->submit([this, i] { start(i); });
  }
}

FetchBatch::~FetchBatch() {
  std::unique_ptr<package::Downloader> downloader;
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    downloader = std::move(downloader_);
  }
  // The downloader's destructor hands every unfinished transfer a
  // "cancelled" completion, which queues a task that notes the failure.
  downloader.reset();
  pool_.reset();
}

void FetchBatch::submit_download(std::size_t index) {
  // Under the lock: the destructor takes the downloader away under it, and
  // once it has, no new one may appear (its completions would queue work
  // on a pool that is going away).
  std::lock_guard lock(mutex_);
  if (cancelled_) throw PrefixError("fetching " + slots_[index].record.dist_str() + " was cancelled");
  if (!downloader_) downloader_ = std::make_unique<package::Downloader>(cache_.options().download);
  downloader_->submit(*slots_[index].request, [this, index](package::DownloadResult result) {
    // On the transfer thread: hand the verification and extraction to a worker.
    pool_->submit([this, index, result = std::move(result)]() mutable {
      downloaded(index, std::move(result));
    });
  });
}

void FetchBatch::finish(std::size_t index, std::optional<CachedPackage> package, std::string error) {
  std::lock_guard lock(mutex_);
  auto& slot = slots_[index];
  slot.package = std::move(package);
  slot.error = std::move(error);
  slot.lock.reset();  // the cache entry is complete (or abandoned): others may use it
  slot.done = true;
  changed_.notify_all();
}

void FetchBatch::start(std::size_t index) {
  auto& slot = slots_[index];
  try {
    {
      std::lock_guard lock(mutex_);
      if (cancelled_) throw PrefixError("fetching " + slot.record.dist_str() + " was cancelled");
    }
    auto package_lock = cache_.lock_package(slot.record);
    slot.lock.emplace(std::move(package_lock));
    if (const auto extracted = cache_.find_extracted(slot.record)) {
      finish(index, cache_.load(slot.record, *extracted), {});
      return;
    }
    if (const auto digests = cache_.verify_tarball(slot.record)) {
      extract(index, *digests);
      return;
    }
    slot.request = cache_.download_request(slot.record);
    if (net::is_file_url(slot.record.url)) {
      downloaded(index, package::copy_local_package(*slot.request));
      return;
    }
    submit_download(index);
  } catch (const std::exception& error) {
    finish(index, std::nullopt, error.what());
  }
}

void FetchBatch::downloaded(std::size_t index, package::DownloadResult result) {
  auto& slot = slots_[index];
  try {
    cache_.accept_download(slot.record, *slot.request, result);
    extract(index, result.digests);
  } catch (const std::exception& error) {
    finish(index, std::nullopt, error.what());
  }
}

void FetchBatch::extract(std::size_t index, const package::FileDigests& digests) {
  auto& slot = slots_[index];
  try {
    {
      std::lock_guard lock(mutex_);
      if (cancelled_) throw PrefixError("fetching " + slot.record.dist_str() + " was cancelled");
    }
    finish(index, cache_.extract_tarball(slot.record, digests), {});
  } catch (const std::exception& error) {
    finish(index, std::nullopt, error.what());
  }
}

const CachedPackage& FetchBatch::wait(std::size_t index) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return slots_[index].done; });
  const auto& slot = slots_[index];
  if (!slot.package) throw PrefixError(slot.error);
  return *slot.package;
}

void FetchBatch::drop_kept(std::size_t index) {
  std::lock_guard lock(mutex_);
  if (slots_[index].package) slots_[index].package->kept.reset();
}

void FetchBatch::wait_all() {
  for (std::size_t i = 0; i < slots_.size(); ++i) wait(i);
}

}  // namespace gpuenv::prefix
