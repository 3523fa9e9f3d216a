// What a command that changes a prefix shows while and after it does: a
// progress line on a terminal (downloads in bytes, linking in packages),
// then one summary line, the clobbers and the warnings.
#pragma once

#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpuenv/prefix/package_cache.hpp"
#include "gpuenv/prefix/transaction.hpp"

namespace gpuenv::cli {

// What a transaction will do, in terms the progress line can watch from
// outside: the cache files its downloads become and the conda-meta records
// its links write (the prefix module reports no progress itself; watching
// its files keeps the display out of the hot path).
struct TransactionWatch {
  struct Download {
    std::filesystem::path tarball;       // <pkgs>/<fn>, present once verified
    std::filesystem::path partial;       // where it is written until then
    std::optional<std::uint64_t> size;   // from the record, when known
  };
  std::vector<Download> downloads;  // only packages neither extracted nor downloaded yet
  std::vector<std::filesystem::path> records_to_link;  // <prefix>/conda-meta/<dist>.json
};

// The watch for linking `link` into `prefix` through `cache`.
TransactionWatch watch_for(const std::filesystem::path& prefix, const std::vector<specs::PackageRecord>& link,
                           const prefix::PackageCache& cache);

// Bytes the watched downloads brought into the cache (their files' sizes).
std::uint64_t downloaded_bytes(const TransactionWatch& watch);

// "Downloading 2/5  12.3 MB / 40.0 MB   Linking 3/12", cut to `width`.
std::string transaction_progress_line(std::size_t downloads_done, std::size_t downloads, std::uint64_t bytes,
                                      std::optional<std::uint64_t> total_bytes, std::size_t linked,
                                      std::size_t to_link, std::size_t width);

// Redraws the progress line from a thread of its own until stopped. Draws
// only when `enabled` and `fd` is a terminal, so logs and pipes stay clean.
class TransactionProgress {
 public:
  TransactionProgress(TransactionWatch watch, bool enabled, int fd = STDERR_FILENO);
  ~TransactionProgress();
  TransactionProgress(const TransactionProgress&) = delete;
  TransactionProgress& operator=(const TransactionProgress&) = delete;

  // Stops the thread and erases the line (before anything else is printed).
  void stop();

 private:
  void run();
  void draw();

  TransactionWatch watch_;
  int fd_;
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  bool drew_ = false;
  std::string last_line_;
  std::thread thread_;
};

struct ChangeSummary {
  std::size_t linked = 0;
  std::size_t unlinked = 0;
  std::uint64_t downloaded_bytes = 0;
  double seconds = 0;
};

// "Linked 12 packages, unlinked 3 (1.2 MB downloaded) in 2.3 s".
std::string summary_line(const ChangeSummary& summary);

// What a finished transaction has to tell besides the summary: a finished
// or undone earlier transaction, clobbered paths and warnings on stderr,
// the packages' own messages on stdout.
void print_transaction_notes(const prefix::TransactionResult& result);

// The same facts for --json: "clobbers", "warnings", "messages".
void add_transaction_json(nlohmann::ordered_json& output, const prefix::TransactionResult& result,
                          const ChangeSummary& summary);

// "finished the interrupted transaction ..." for a recovery that did something.
std::string recovery_note(prefix::RecoveryOutcome outcome, const std::filesystem::path& prefix);

}  // namespace gpuenv::cli
