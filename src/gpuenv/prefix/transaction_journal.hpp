// The journal that makes a prefix transaction all-or-nothing, even when the
// process is killed (SIGKILL included) at any point.
//
// Everything lives in <prefix>/conda-meta/.gpuenv-transaction/:
//   journal    one JSON object a line, each written *before* the change it
//              announces
//   saved/<n>  files moved out of the way (unlinked, or clobbered) rather
//              than deleted, so that a rollback can put them back
//
// Lines:
//   begin    the history block to append once committed, and the size the
//            history file had, so appending it is idempotent
//   save     paths about to be renamed to saved/<n>
//   prune    directories the unlinked packages left empty, about to be
//            removed so that the new packages can put a file where one was
//            (a rollback creates them again, with their modes)
//   create   directories and paths about to be created (every one of them
//            absent before: paths that existed were saved first)
//   undone   a rollback finished undoing block k (a rollback killed half
//            way resumes after the blocks it finished)
//   commit   the new state is complete
//
// The next gpuenv call on the prefix finds the journal (recover_prefix) and
// either rolls back (no commit line: created paths removed, saved ones
// renamed back) or completes (commit: saved files deleted, directories left
// empty by removed packages deleted, history appended). Both are
// idempotent, so a recovery that is itself killed is simply run again.
//
// A torn last line (the process died inside write(2)) is ignored: nothing
// it announced had started. No fsync: the journal protects against the
// process dying, not against the machine losing power (as conda's and
// mamba's transactions).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuenv::prefix {

struct SavedPath {
  std::uint64_t id = 0;  // saved/<id>
  std::string path;      // relative to the prefix
};

struct SaveBlock {
  enum class Reason { unlink, clobber };
  Reason reason = Reason::unlink;
  std::string package;  // dist string, for people reading the journal
  std::vector<SavedPath> paths;
  // Directories that may be left empty once the unlink is committed.
  std::vector<std::string> cleanup_dirs;
};

struct PrunedDirectory {
  std::string path;    // relative to the prefix
  unsigned mode = 0;   // permission bits, restored by a rollback
};

// Deepest first, as they are removed.
struct PruneBlock {
  std::vector<PrunedDirectory> dirs;
};

struct CreateBlock {
  std::string package;
  std::vector<std::string> dirs;       // created, parents first
  std::vector<std::string> paths;      // files and links created
  std::vector<std::string> keep_dirs;  // directories the package declares: never cleaned up
};

// What a journal file says; the parsed form drives recovery.
struct JournalContents {
  std::string history_block;
  std::int64_t history_size = -1;  // -1: the history file did not exist
  std::vector<SaveBlock> saves;    // with their block numbers below
  std::vector<CreateBlock> creates;
  std::vector<PruneBlock> prunes;
  enum class BlockKind { save, create, prune };
  // Block order as written: (kind, index into saves, creates or prunes).
  std::vector<std::pair<BlockKind, std::size_t>> blocks;
  std::vector<bool> undone;  // per block
  bool committed = false;
};

class TransactionJournal {
 public:
  static std::filesystem::path directory(const std::filesystem::path& prefix);

  // Creates the journal; throws PrefixError when one exists (recover first).
  TransactionJournal(const std::filesystem::path& prefix, const std::string& history_block);
  ~TransactionJournal();
  TransactionJournal(const TransactionJournal&) = delete;
  TransactionJournal& operator=(const TransactionJournal&) = delete;

  // The id of the next saved path (saved/<id>), reserving `count` of them.
  std::uint64_t reserve_save_ids(std::size_t count);
  std::filesystem::path saved_file(std::uint64_t id) const;

  void record(const SaveBlock& block);
  void record(const CreateBlock& block);
  void record(const PruneBlock& block);
  void commit();

 private:
  void append(const std::string& line);

  std::filesystem::path prefix_;
  int fd_ = -1;
  std::uint64_t next_save_id_ = 0;
  std::mutex mutex_;
};

// Reads a journal; nullopt when the prefix has none.
std::optional<JournalContents> read_journal(const std::filesystem::path& prefix);

enum class RecoveryOutcome { nothing_to_recover, rolled_back, completed };

// Finishes whatever a journal left: rolls back or completes, then removes
// the journal. The caller holds the prefix lock. Throws PrefixError when a
// step cannot be done (the journal stays for the next attempt).
// `after_undone_block` runs after each block a rollback undoes (tests use
// it to kill a rollback half way).
RecoveryOutcome settle_journal(const std::filesystem::path& prefix,
                               const std::function<void()>& after_undone_block = {});

}  // namespace gpuenv::prefix
