// Changing a prefix as one transaction: the packages to unlink go, the
// packages to link come, and either all of it happens or none of it --
// also when the process is killed half way (the next call on the prefix
// finishes or undoes it; see transaction_journal.hpp).
//
//   lock the prefix (two gpuenv processes never change one prefix at once)
//   recover_prefix: settle what a killed transaction left
//   start fetching every package to link (download, verify, extract, in parallel)
//   unlink: pre-unlink scripts, then move the old packages' files to the
//     journal's saved area
//   link each package as soon as it is in the cache, in the given order
//     (pre-link script first; a directory the old packages left empty where
//     the new one has a file is removed), then run the post-link scripts
//   commit; append conda-meta/history; delete the saved files
//
// A failure at any step before the commit rolls everything back and
// throws PrefixError saying what failed and that the prefix is unchanged.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/prefix/file_lock.hpp"
#include "gpuenv/prefix/package_cache.hpp"
#include "gpuenv/prefix/prefix_linker.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/prefix/transaction_journal.hpp"
#include "gpuenv/specs/package_record.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::prefix {

struct Transaction {
  // In link order: dependencies before their dependents (the solver's
  // order). A later package's file wins a clobber.
  std::vector<specs::PackageRecord> link;
  // Installed packages to remove, matched by name-version-build.
  std::vector<specs::PackageRecord> unlink;
};

// Where a test may have the process kill itself (SIGKILL), to prove that
// the next call recovers. Never set outside tests.
enum class CrashPoint {
  after_unlink,     // every old package unlinked, nothing linked
  after_prune,      // an emptied directory in a new file's way removed, that file not linked
  before_commit,    // everything linked and recorded, no commit line
  after_commit,     // committed, history not yet appended, saved files not deleted
  during_rollback,  // a failed transaction's rollback, after its first undone block
};

struct TestCrashHook {
  std::optional<std::size_t> after_linked_files;
  std::optional<CrashPoint> at;
};

// Reads GPUENV_TEST_CRASH_AFTER_LINKED_FILES=N and GPUENV_TEST_CRASH_AT=
// after_unlink|after_prune|before_commit|after_commit|during_rollback (the CLI passes
// the process environment; tests use these variables only). Throws
// PrefixError for values it cannot read.
TestCrashHook test_crash_hook_from_environment(const util::EnvLookup& env);

// The steps of one package in a transaction, as they happen.
enum class PackageStage {
  unlinked,  // an old package's files are gone from the prefix
  in_cache,  // downloaded (or found), verified and extracted: ready to link
  linked,    // its files are in the prefix and its conda-meta record written
};
using PackageStageNotice = std::function<void(PackageStage, const specs::PackageRecord&)>;

struct TransactionOptions {
  PackageCacheOptions cache;
  PathConflictPolicy path_conflicts = PathConflictPolicy::clobber;
  LinkMode link_mode = LinkMode::hardlink;
  // For conda-meta/history: the command line, and the specs the user asked
  // to install/update or remove.
  std::string command_line;
  std::string tool_version;
  std::vector<std::string> update_specs;
  std::vector<std::string> remove_specs;
  // Package name -> the spec that asked for it (conda-meta requested_spec).
  std::map<std::string, std::string> requested_specs;
  // CEP 22: a prefix with conda-meta/frozen is only changed with this set.
  bool override_frozen = false;
  // Run the packages' pre-link, post-link and pre-unlink scripts (CEP 34).
  bool run_link_scripts = true;
  // Exported to link scripts as ROOT_PREFIX.
  std::filesystem::path root_prefix;
  std::chrono::milliseconds lock_timeout = std::chrono::hours(1);
  FileLock::WaitNotice on_lock_wait;
  // Called on the calling thread at each step of each package (progress
  // displays); a rollback after a failure is not reported step by step.
  PackageStageNotice on_package;
  TestCrashHook test_crash;
  // How the linker reaches paths beneath the prefix (tests force the
  // component walk that kernels without openat2 get).
  BeneathWalk beneath_walk = BeneathWalk::automatic;
};

struct TransactionResult {
  RecoveryOutcome recovery = RecoveryOutcome::nothing_to_recover;  // found before starting
  std::vector<PrefixRecord> unlinked;
  std::vector<PrefixRecord> linked;
  // Paths two owners wanted; the winner's file is in the prefix.
  std::vector<PathClobber> clobbers;
  // conda-meta records that could not be read (those packages were left
  // alone), pre-unlink scripts that failed.
  std::vector<std::string> warnings;
  // What link scripts wrote to the prefix's .messages.txt for the user.
  std::string script_messages;
};

// Applies `transaction` to `prefix` (created when missing). Throws
// PrefixError; the prefix is then as it was before the call.
TransactionResult apply_transaction(const std::filesystem::path& prefix,
                                    const Transaction& transaction,
                                    const TransactionOptions& options);

// The prefix's lock: <prefix>/conda-meta/.gpuenv.lock.
FileLock lock_prefix(const std::filesystem::path& prefix, std::chrono::milliseconds timeout,
                     const FileLock::WaitNotice& notice = {});

// Takes the prefix lock and settles a transaction a killed process left.
// Every gpuenv operation on a prefix calls this first (apply_transaction
// does). A prefix without conda-meta has nothing to recover.
RecoveryOutcome recover_prefix(const std::filesystem::path& prefix,
                               std::chrono::milliseconds lock_timeout = std::chrono::hours(1));

}  // namespace gpuenv::prefix
