#include "gpuenv/environment/apply.hpp"

#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "gpuenv/environment/installed_environment.hpp"
#include "gpuenv/prefix/package_cache.hpp"
#include "gpuenv/prefix/prefix_error.hpp"

namespace gpuenv::environment {
namespace {

namespace fs = std::filesystem;

constexpr auto kDownloadSampleInterval = std::chrono::milliseconds(100);

std::optional<std::uint64_t> size_on_disk(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(info.st_size);
}

// Forwards to a Reporter one call at a time: the transaction's thread and
// the download watch both report.
class SerialisedReporter {
 public:
  explicit SerialisedReporter(Reporter& reporter) : reporter_(reporter) {}
  template <typename Call>
  void operator()(Call&& call) {
    std::lock_guard lock(mutex_);
    call(reporter_);
  }
  bool follows_downloads() const { return reporter_.follows_downloads(); }

 private:
  Reporter& reporter_;
  std::mutex mutex_;
};

// The progress of one transaction. Downloads report no bytes themselves
// (keeping the download path free of callbacks): the package cache writes
// each to its partial_download_path and renames it into place once
// verified, so a thread samples those files' sizes while downloads run.
class TransactionTracker {
 public:
  TransactionTracker(const Plan& plan, const prefix::PackageCache& cache, SerialisedReporter& report)
      : report_(report) {
    progress_.to_link = plan.solution.link.size();
    progress_.to_unlink = plan.solution.unlink.size();
    progress_.download_bytes_total = 0;
    for (const auto& record : plan.solution.link) {
      if (cache.holds(record)) continue;  // extracted, or verified and extracted from its file
      downloads_.push_back({&record, cache.tarball_path(record), cache.partial_download_path(record)});
      if (progress_.download_bytes_total && record.size) *progress_.download_bytes_total += *record.size;
      else progress_.download_bytes_total.reset();
    }
    progress_.downloads = downloads_.size();
    send();
    if (!downloads_.empty() && report.follows_downloads()) {
      sampler_ = std::thread([this] { sample_until_stopped(); });
    }
  }
  ~TransactionTracker() { stop(); }
  TransactionTracker(const TransactionTracker&) = delete;
  TransactionTracker& operator=(const TransactionTracker&) = delete;

  void package_step(prefix::PackageStage stage, const specs::PackageRecord& record) {
    {
      std::lock_guard lock(mutex_);
      if (stage == prefix::PackageStage::linked) ++progress_.linked;
      if (stage == prefix::PackageStage::unlinked) ++progress_.unlinked;
    }
    const auto step = stage == prefix::PackageStage::linked     ? PackageStep::linked
                      : stage == prefix::PackageStage::unlinked ? PackageStep::unlinked
                                                                : PackageStep::extracted;
    report_([&](Reporter& reporter) { reporter.package_step(step, record); });
    send();
  }

  // Stops the sampler; the last progress is sent once more.
  void stop() {
    if (sampler_.joinable()) {
      {
        std::lock_guard lock(mutex_);
        stopping_ = true;
      }
      stop_requested_.notify_all();
      sampler_.join();
      sample();
    }
  }

  std::uint64_t downloaded_bytes() const {
    std::uint64_t total = 0;
    for (const auto& download : downloads_) total += size_on_disk(download.tarball).value_or(0);
    return total;
  }

 private:
  struct Download {
    const specs::PackageRecord* record;  // in the plan, which outlives the tracker
    fs::path tarball;
    fs::path partial;
    bool reported = false;
    std::uint64_t size = 0;  // once reported: arrived files do not change, so are not stat'ed again
  };

  void sample_until_stopped() {
    std::unique_lock lock(mutex_);
    while (!stop_requested_.wait_for(lock, kDownloadSampleInterval, [this] { return stopping_; })) {
      lock.unlock();
      sample();
      lock.lock();
    }
  }

  void sample() {
    std::size_t done = 0;
    std::uint64_t bytes = 0;
    std::vector<const Download*> arrived;
    for (auto& download : downloads_) {
      if (download.reported) {
        ++done;
        bytes += download.size;
      } else if (const auto partial = size_on_disk(download.partial)) {
        bytes += *partial;  // under way: one stat
      } else if (const auto size = size_on_disk(download.tarball)) {
        // The partial file is renamed to the tarball in one step, so a
        // missing partial means arrived or not yet started.
        ++done;
        bytes += *size;
        download.reported = true;
        download.size = *size;
        arrived.push_back(&download);
      }
    }
    for (const auto* download : arrived) {
      report_([&](Reporter& reporter) { reporter.package_step(PackageStep::downloaded, *download->record); });
    }
    {
      std::lock_guard lock(mutex_);
      progress_.downloads_done = done;
      progress_.downloaded_bytes = bytes;
    }
    // Sent on every tick, changed or not: a display that waits before its
    // first draw (so fast changes do not flash a line) still gets to draw
    // while a download is stuck behind another process's lock.
    send();
  }

  void send() {
    TransactionProgress snapshot;
    {
      std::lock_guard lock(mutex_);
      snapshot = progress_;
    }
    report_([&](Reporter& reporter) { reporter.transaction_progress(snapshot); });
  }

  SerialisedReporter& report_;
  std::vector<Download> downloads_;  // touched by the sampler only, once it runs
  std::mutex mutex_;
  TransactionProgress progress_;  // guarded by mutex_
  std::condition_variable stop_requested_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread sampler_;
};

}  // namespace

std::expected<ApplyResult, Error> apply(Plan& plan, const Settings& settings, const ApplyOptions& options,
                                        Reporter& reporter) {
  const auto& directories = settings.directories;
  if (directories.pkgs_dirs.empty()) {
    return std::unexpected(make_error(ErrorKind::configuration,
                                      "no package cache directory is known (HOME is not set): set CONDA_PKGS_DIRS "
                                      "or GPUENV_ROOT_PREFIX"));
  }
  SerialisedReporter report(reporter);
  const auto notice = [&](const std::string& message) {
    report([&](Reporter& target) { target.notice(message); });
  };
  prefix::TransactionOptions transaction;
  transaction.cache.pkgs_dirs = directories.pkgs_dirs;
  transaction.cache.on_lock_wait = notice;
  transaction.cache.safety_checks = settings.configuration.safety_checks;
  transaction.cache.extra_safety_checks = settings.configuration.extra_safety_checks;
  transaction.cache.download.channel_credentials = plan.loaded.credentials;
  transaction.cache.download.client = settings.client;
  transaction.on_lock_wait = notice;
  transaction.command_line = options.command_line;
  transaction.tool_version = GPUENV_VERSION;
  transaction.update_specs = plan.update_specs;
  transaction.remove_specs = plan.remove_specs;
  transaction.requested_specs = plan.requested_specs;
  transaction.override_frozen = options.override_frozen;
  transaction.run_link_scripts = options.run_link_scripts;
  transaction.root_prefix = directories.root_prefix;

  // However this ends, the plan is spent and the environment free again.
  struct ReleaseLock {
    Plan& plan;
    ~ReleaseLock() { plan.change_lock.reset(); }
  } release{plan};
  ApplyResult result;
  const auto started = std::chrono::steady_clock::now();
  try {
    transaction.test_crash = prefix::test_crash_hook_from_environment(settings.env);
    const prefix::PackageCache cache(transaction.cache);
    TransactionTracker tracker(plan, cache, report);
    transaction.on_package = [&](prefix::PackageStage stage, const specs::PackageRecord& record) {
      tracker.package_step(stage, record);
    };
    try {
      result.transaction = prefix::apply_transaction(
          plan.prefix, prefix::Transaction{plan.solution.link, plan.solution.unlink}, transaction);
    } catch (...) {
      tracker.stop();
      reporter.transaction_finished();
      throw;
    }
    tracker.stop();
    reporter.transaction_finished();
    result.downloaded_bytes = tracker.downloaded_bytes();
  } catch (const std::exception& failure) {
    return std::unexpected(make_error(ErrorKind::transaction, failure.what()));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (const auto note = recovery_note(result.transaction.recovery, plan.prefix); !note.empty()) reporter.notice(note);
  return result;
}

}  // namespace gpuenv::environment
