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


  // Links `package` and writes its conda-meta record, which it returns.
  // Where it has a file and the prefix a directory that the unlinked
  // packages left empty (a new version turned a directory into a file), the
  // directory is removed first, journaled, as conda and rattler do.
  // `python` is the prefix's python after the transaction (needed for
  // noarch: python packages). Throws PrefixError; the caller rolls back.
  PrefixRecord link_package(const CachedPackage& package, const std::optional<PythonLayout>& python,
                            const std::string& requested_spec);

  const std::vector<PathClobber>& clobbers() const noexcept { return clobbers_; }
  std::size_t linked_files() const noexcept { return linked_files_; }

 private:
  struct Planned;
  struct LinkPlan;
  struct LinkTally;
  // The steps of link_package, in order.
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
  // Places every planned file into `paths` (one entry per planned item, in
  // order), on several threads when the package is large enough to gain.
  void place_files(const LinkPlan& plan, const CachedPackage& package,
                   const std::optional<PythonLayout>& python, std::vector<PrefixPathEntry>& paths,
                   LinkTally& tally);

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
  std::unique_ptr<util::ThreadPool> placement_pool_;  // made for the first large package
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
};

}  // namespace gpuenv::prefix
