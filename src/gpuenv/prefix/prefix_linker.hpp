// Linking packages into a prefix and unlinking them, one transaction's
// worth, every change announced in the transaction journal first.
//
// Linking follows info/paths.json: a hard link to the package cache when
// the cache is on the prefix's filesystem (else a copy), a copy with the
// placeholder replaced for files that hold the build prefix, the same
// symbolic links, the declared directories; noarch: python packages go to
// the prefix's python (site-packages, bin/ entry points; .pyc files are
// left for python to write). A path another package already has is a
// clobber: reported, never silent, and an error under
// PathConflictPolicy::prevent.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuenv/prefix/beneath.hpp"
#include "gpuenv/prefix/package_cache.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/prefix/python_layout.hpp"
#include "gpuenv/prefix/transaction_journal.hpp"
#include "gpuenv/util/file_creation.hpp"
#include "gpuenv/util/thread_pool.hpp"

namespace gpuenv::prefix {

class FilePlacement;

enum class PathConflictPolicy {
  clobber,  // the later package's file wins; the clobber is reported (conda's default)
  prevent,  // the transaction fails and is rolled back
};

enum class LinkMode {
  hardlink,  // hard links where possible, copies across filesystems
  copy,      // always copy (the cache may change under the prefix otherwise)
};

// One path that two owners wanted.
struct PathClobber {
  std::string path;
  std::string winner;          // dist string of the package whose file is there now
  std::string previous_owner;  // dist string, or empty: a file no package owned
};

struct LinkOptions {
  PathConflictPolicy conflicts = PathConflictPolicy::clobber;
  LinkMode mode = LinkMode::hardlink;
  // Test hooks: kill the process (SIGKILL) right after this many files were
  // linked in the transaction, or right after the first emptied directory
  // in a new file's way was removed. See TestCrashHook in transaction.hpp.
  std::optional<std::size_t> crash_after_linked_files;
  bool crash_after_prune = false;
  // How paths are reached beneath the prefix (tests force the walk that
  // kernels without openat2 get).
  BeneathWalk walk = BeneathWalk::automatic;
};

class PrefixLinker {
 public:
  // `kept` are the installed packages the transaction leaves in place:
  // their files are what a new package clobbers.
  PrefixLinker(std::filesystem::path prefix, TransactionJournal& journal, LinkOptions options,
               const std::vector<PrefixRecord>& kept);
  ~PrefixLinker();
  PrefixLinker(const PrefixLinker&) = delete;
  PrefixLinker& operator=(const PrefixLinker&) = delete;

  // Moves every path `record` owns (and its conda-meta record, and the
  // .pyc files python wrote for its .py files) out of the prefix into the
  // journal's saved area. Paths a kept package also owns stay.
  void unlink_package(const PrefixRecord& record);


  // Links `package` in two steps, so that one package's files are placed
  // while this thread plans the next one and writes the last one's record.
  // start_link plans the package, journals and creates its directories and
  // hands its files to the placement threads; finish_link completes the
  // oldest started package (every file placed, its conda-meta record
  // written) and returns that record. Packages finish in the order they
  // started. Planning that must look at the prefix, a file an earlier
  // package of the transaction placed, and a pre-link script (the caller's)
  // first wait for the packages in flight, so the prefix ends up as linking
  // one package after the other leaves it.
  //
  // Where a package has a file and the prefix a directory that the unlinked
  // packages left empty (a new version turned a directory into a file), the
  // directory is removed first, journaled, as conda and rattler do.
  // `python` is the prefix's python after the transaction (needed for
  // noarch: python packages). `package` must outlive its finish_link. Both
  // throw PrefixError; the caller rolls back once the linker is gone (its
  // destructor stops the placement threads and waits for them).
  void start_link(const CachedPackage& package, const std::optional<PythonLayout>& python,
                  const std::string& requested_spec);
  PrefixRecord finish_link();

  const std::vector<PathClobber>& clobbers() const noexcept { return clobbers_; }
  std::size_t linked_files() const noexcept { return linked_files_; }

 private:
  struct Planned;
  struct LinkPlan;
  struct LinkTally;
  struct InFlight;
  // The steps of start_link, in order.
  LinkPlan plan_link(const CachedPackage& package, const std::optional<PythonLayout>& python);
  void plan_path(LinkPlan& plan, Planned item);
  void check_conflicts(const LinkPlan& plan);
  void prune(const LinkPlan& plan);
  void move_aside(const LinkPlan& plan);
  void create_directories(const LinkPlan& plan);
  PrefixPathEntry place_entry_point(const Planned& item, const PythonLayout& python,
                                    FilePlacement& placement);
  PrefixPathEntry place_file(const Planned& item, const CachedPackage& package,
                             const std::unordered_map<std::string_view, const package::FileFacts*>& actual,
                             FilePlacement& placement, LinkTally& tally);
  // Hands the package's files to the placement threads.
  void start_placement(InFlight& link);
  // Places runs of `link`'s files into its `paths` (one entry per planned
  // item, in order) until none is left or one failed.
  void place_runs(InFlight& link, PrefixDirectories& directories, LinkTally& tally);
  // This thread places what is left of `link`'s files, waits for the
  // placement threads and rethrows the first failure.
  void complete_placement(InFlight& link);
  // complete_placement of every package in flight, oldest first: before
  // planning looks at the prefix or replaces a file placed in this
  // transaction.
  void complete_placements();

  void ensure_directory(const std::string& dir, std::vector<std::string>& to_create);
  bool collect_emptied_tree(const std::string& dir, std::vector<PrunedDirectory>& tree);
  std::string describe_directory_contents(const std::string& dir);
  bool may_exist(const std::string& path) const;
  void count_linked_file();

  std::filesystem::path prefix_;
  std::string prefix_text_;
  int prefix_fd_ = -1;
  std::optional<PrefixDirectories> directories_;  // beneath prefix_fd_
  std::optional<util::CreationModes> creation_modes_;  // of prefix_fd_: one umask read per transaction
  TransactionJournal& journal_;
  LinkOptions options_;
  std::atomic<bool> hardlinks_work_ = true;  // cleared by the first file that had to be copied
  std::unique_ptr<util::ThreadPool> placement_pool_;  // made by the first start_link
  // path -> dist (one of owner_dists_): tens of thousands of paths share a
  // few hundred owners, so each entry points at its owner's name.
  std::deque<std::string> owner_dists_;
  std::unordered_map<std::string, const std::string*> kept_owners_;
  std::unordered_map<std::string, const std::string*> linked_owners_;  // this transaction
  std::unordered_set<std::string> known_dirs_;                  // exist (or will, once planned)
  std::unordered_set<std::string> created_dirs_;                // created by this transaction
  // The unlinked packages' directories and their parents: maybe empty now.
  std::unordered_set<std::string> emptied_dirs_;
  std::vector<PathClobber> clobbers_;
  std::atomic<std::size_t> linked_files_ = 0;
  // Started, not finished, oldest first (the destructor waits for their
  // placement threads).
  std::deque<std::unique_ptr<InFlight>> in_flight_;
};

}  // namespace gpuenv::prefix
