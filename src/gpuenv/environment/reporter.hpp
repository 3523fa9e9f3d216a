// What the environment layer tells the user while it works, as events: the
// library prints nothing, each front end renders them its own way (the CLI
// draws progress lines on a terminal, the builder writes its log, a test
// records them). Every method has a do-nothing default.
//
// Calls never overlap: plan() and apply() serialise them, so an
// implementation needs no lock of its own. They may come from a thread other
// than the caller's (the download watch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "gpuenv/repodata/fetch_observer.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::environment {

// Where a transaction stands, sent whenever a count changes and while
// downloads run (about ten times a second).
struct TransactionProgress {
  std::size_t downloads_done = 0;
  std::size_t downloads = 0;  // packages neither extracted nor downloaded before
  std::uint64_t downloaded_bytes = 0;
  std::optional<std::uint64_t> download_bytes_total;  // when every record gives a size
  std::size_t linked = 0;
  std::size_t to_link = 0;
  std::size_t unlinked = 0;
  std::size_t to_unlink = 0;
};

enum class PackageStep {
  downloaded,  // the package file arrived and was verified
  extracted,   // ready to link (downloaded now, or found in a package cache)
  linked,
  unlinked,
};

class Reporter : public repodata::FetchObserver {
 public:
  // Something the user should know that did not stop the work: a skipped
  // record, a damaged conda-meta record, a failed pre-unlink script.
  virtual void warning(std::string_view message) { (void)message; }
  // Something that happened on the way: waiting for a lock, a recovered
  // interrupted transaction.
  virtual void notice(std::string_view message) { (void)message; }
  virtual void package_step(PackageStep step, const specs::PackageRecord& package) {
    (void)step;
    (void)package;
  }
  virtual void transaction_progress(const TransactionProgress& progress) { (void)progress; }
  // Whether transaction_progress and package_step(downloaded) are of use to
  // anyone: false lets apply() skip sampling the downloads' files (a thread
  // statting every pending download ten times a second), as when nothing is
  // drawn because stderr is not a terminal.
  virtual bool follows_downloads() const { return true; }
  // The transaction is over (successfully or not): a progress line goes away.
  virtual void transaction_finished() {}
};

}  // namespace gpuenv::environment
