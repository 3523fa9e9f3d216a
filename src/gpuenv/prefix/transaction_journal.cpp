#include "gpuenv/prefix/transaction_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "gpuenv/package/file_content.hpp"
#include "gpuenv/prefix/beneath.hpp"
#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/util/json_writer.hpp"

namespace gpuenv::prefix {

namespace {

constexpr int kJournalVersion = 1;

std::filesystem::path journal_file(const std::filesystem::path& prefix) {
  return TransactionJournal::directory(prefix) / "journal";
}

std::filesystem::path saved_dir(const std::filesystem::path& prefix) {
  return TransactionJournal::directory(prefix) / "saved";
}

std::filesystem::path history_file(const std::filesystem::path& prefix) {
  return prefix / "conda-meta" / "history";
}

[[noreturn]] void fail(const std::string& what, int error) {
  throw PrefixError(what + ": " + std::strerror(error));
}

void write_line(int fd, const std::string& line, const std::filesystem::path& file) {
  // One write(2) per line: a line is either whole in the file or torn at
  // its end, never interleaved with another.
  std::string_view rest = line;
  while (!rest.empty()) {
    const ssize_t written = ::write(fd, rest.data(), rest.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      fail("cannot write the transaction journal " + file.string(), errno);
    }
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
}

bool exists_no_follow(const std::filesystem::path& path, struct stat* info = nullptr) {
  struct stat local {};
  return ::lstat(path.c_str(), info != nullptr ? info : &local) == 0;
}

// The prefix, opened once per recovery; every path the journal names is
// reached beneath it (beneath.hpp), so that neither a rollback nor a
// completion removes or restores anything outside the prefix, whatever
// symbolic links the prefix holds (or the journal says).
class PrefixHandle {
 public:
  explicit PrefixHandle(const std::filesystem::path& prefix)
      : fd_(::open(prefix.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ < 0) fail("cannot open the prefix " + prefix.string(), errno);
    directories_.emplace(fd_);
  }
  ~PrefixHandle() {
    directories_.reset();
    ::close(fd_);
  }
  PrefixHandle(const PrefixHandle&) = delete;
  PrefixHandle& operator=(const PrefixHandle&) = delete;

  PrefixDirectories& directories() { return *directories_; }

  // Removes a file, link or (empty) directory: 0 when removed, else the
  // errno, or kUnreachable for a path whose parent cannot be reached
  // beneath the prefix (it is not the prefix's to remove).
  static constexpr int kUnreachable = -1;
  int remove(const std::string& path, bool directory_only) {
    const auto parent = directories_->parent_of(path);
    if (parent.fd < 0) return parent.error == ENOENT ? ENOENT : kUnreachable;
    int error = 0;
    if (!directory_only) {
      if (::unlinkat(parent.fd, parent.name.c_str(), 0) == 0) return 0;
      error = errno;
      if (error != EISDIR && error != EPERM) return error;
    }
    if (::unlinkat(parent.fd, parent.name.c_str(), AT_REMOVEDIR) != 0) return errno;
    directories_->forget();  // the removed directory may be the one kept
    return 0;
  }

  // Creates `dir` and its missing parents beneath the prefix.
  void make_directories(const std::string& dir) {
    std::size_t end = 0;
    while (end < dir.size()) {
      end = std::min(dir.find('/', end + 1), dir.size());
      const auto parent = directories_->parent_of(dir.substr(0, end));
      if (parent.fd >= 0 && ::mkdirat(parent.fd, parent.name.c_str(), 0755) == 0) {
        directories_->forget();
      }
    }
  }

 private:
  int fd_;
  std::optional<PrefixDirectories> directories_;
};

void remove_created_path(PrefixHandle& prefix, const std::string& path,
                         const std::filesystem::path& prefix_path) {
  const int error = prefix.remove(path, false);
  if (error == 0 || error == PrefixHandle::kUnreachable || error == ENOENT || error == ENOTEMPTY) {
    return;
  }
  fail("cannot remove " + (prefix_path / path).string() + " while rolling back", error);
}

void undo_create(const std::filesystem::path& prefix_path, const CreateBlock& block) {
  PrefixHandle prefix(prefix_path);
  for (auto it = block.paths.rbegin(); it != block.paths.rend(); ++it) {
    remove_created_path(prefix, *it, prefix_path);
  }
  for (auto it = block.dirs.rbegin(); it != block.dirs.rend(); ++it) {
    prefix.remove(*it, true);  // ENOTEMPTY / ENOENT: not ours to remove, or gone
  }
}

void undo_save(const std::filesystem::path& prefix_path, const SaveBlock& block) {
  PrefixHandle prefix(prefix_path);
  for (auto it = block.paths.rbegin(); it != block.paths.rend(); ++it) {
    const auto saved = saved_dir(prefix_path) / std::to_string(it->id);
    if (!exists_no_follow(saved)) continue;  // never moved, or already put back
    const auto target = prefix_path / it->path;
    const auto slash = it->path.find_last_of('/');
    if (slash != std::string::npos) prefix.make_directories(it->path.substr(0, slash));
    const auto parent = prefix.directories().parent_of(it->path);
    if (parent.fd < 0) {
      throw PrefixError("cannot put " + target.string() + " back from " + saved.string() +
                        " while rolling back: " +
                        describe_unreachable(prefix_path.string(), it->path, parent.error) +
                        "; move the file back by hand, then run gpuenv again");
    }
    if (::renameat(AT_FDCWD, saved.c_str(), parent.fd, parent.name.c_str()) != 0) {
      fail("cannot put " + target.string() + " back from " + saved.string() +
               " while rolling back; move it back by hand, then run gpuenv again",
           errno);
    }
  }
}

// Creates again the directories a prune removed, parents first; one that
// exists (never removed: the prune was killed first) keeps its mode.
void undo_prune(const std::filesystem::path& prefix_path, const PruneBlock& block) {
  PrefixHandle prefix(prefix_path);
  for (auto it = block.dirs.rbegin(); it != block.dirs.rend(); ++it) {
    const auto slash = it->path.find_last_of('/');
    if (slash != std::string::npos) prefix.make_directories(it->path.substr(0, slash));
    const auto parent = prefix.directories().parent_of(it->path);
    if (parent.fd < 0) {
      throw PrefixError("cannot create " + (prefix_path / it->path).string() + " again while rolling back: " +
                        describe_unreachable(prefix_path.string(), it->path, parent.error));
    }
    if (::mkdirat(parent.fd, parent.name.c_str(), 0700) == 0) {
      prefix.directories().forget();
      ::fchmodat(parent.fd, parent.name.c_str(), static_cast<mode_t>(it->mode & 07777), 0);
    } else if (errno != EEXIST) {
      fail("cannot create " + (prefix_path / it->path).string() + " again while rolling back", errno);
    }
  }
}

void append_history(const std::filesystem::path& prefix, const JournalContents& contents) {
  if (contents.history_block.empty()) return;
  const auto file = history_file(prefix);
  std::error_code error;
  const auto size = std::filesystem::file_size(file, error);
  if (contents.history_size < 0 || error) {
    package::write_whole_file_atomically(file, contents.history_block);
    return;
  }
  // A completion killed after appending must not append twice: cut back to
  // the size before this transaction, then append.
  if (size >= static_cast<std::uintmax_t>(contents.history_size)) {
    std::filesystem::resize_file(file, static_cast<std::uintmax_t>(contents.history_size), error);
  }
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) fail("cannot append to " + file.string(), errno);
  write_line(fd, contents.history_block, file);
  ::close(fd);
}

void remove_empty_directories(const std::filesystem::path& prefix, const JournalContents& contents) {
  std::set<std::string> keep;
  for (const auto& block : contents.creates) {
    keep.insert(block.keep_dirs.begin(), block.keep_dirs.end());
  }
  std::set<std::string> candidates;
  for (const auto& block : contents.saves) {
    if (block.reason != SaveBlock::Reason::unlink) continue;
    for (const auto& dir : block.cleanup_dirs) {
      // Every ancestor may have become empty too.
      std::string_view path = dir;
      while (!path.empty()) {
        candidates.emplace(path);
        const auto slash = path.find_last_of('/');
        path = slash == std::string_view::npos ? std::string_view{} : path.substr(0, slash);
      }
    }
  }
  std::vector<std::string> ordered(candidates.begin(), candidates.end());
  // Deepest first, so a parent is tried after its children went.
  std::sort(ordered.begin(), ordered.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  PrefixHandle handle(prefix);
  for (const auto& dir : ordered) {
    if (keep.contains(dir) || dir == "conda-meta") continue;
    handle.remove(dir, true);  // only empty ones go
  }
}

void append_undone(const std::filesystem::path& prefix, std::size_t block) {
  const auto file = journal_file(prefix);
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) fail("cannot write the transaction journal " + file.string(), errno);
  write_line(fd, nlohmann::json{{"op", "undone"}, {"block", block}}.dump() + "\n", file);
  ::close(fd);
}

// A process killed inside write(2) can leave a line without its newline;
// recovery appends lines of its own, which must not be glued to it.
void cut_torn_tail(const std::filesystem::path& prefix) {
  const auto file = journal_file(prefix);
  const auto text = package::read_whole_file(file);
  if (!text || text->empty() || text->back() == '\n') return;
  const auto last_newline = text->find_last_of('\n');
  std::error_code error;
  std::filesystem::resize_file(file, last_newline == std::string::npos ? 0 : last_newline + 1, error);
  if (error) {
    throw PrefixError("cannot repair the transaction journal " + file.string() + ": " +
                      error.message());
  }
}

void finish_journal(const std::filesystem::path& prefix) {
  // The journal goes first: a leftover saved/ without a journal is garbage
  // that the next recovery deletes.
  ::unlink(journal_file(prefix).c_str());
  std::error_code ignored;
  std::filesystem::remove_all(TransactionJournal::directory(prefix), ignored);
}

}  // namespace

std::filesystem::path TransactionJournal::directory(const std::filesystem::path& prefix) {
  return prefix / "conda-meta" / ".gpuenv-transaction";
}

TransactionJournal::TransactionJournal(const std::filesystem::path& prefix,
                                       const std::string& history_block)
    : prefix_(prefix) {
  std::error_code error;
  std::filesystem::create_directories(saved_dir(prefix), error);
  if (error) {
    throw PrefixError("cannot create " + saved_dir(prefix).string() + ": " + error.message());
  }
  const auto file = journal_file(prefix);
  fd_ = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    fail("cannot start a transaction on " + prefix.string() +
             " (an unfinished one must be recovered first)",
         errno);
  }
  std::int64_t history_size = -1;
  const auto size = std::filesystem::file_size(history_file(prefix), error);
  if (!error) history_size = static_cast<std::int64_t>(size);
  append(nlohmann::json{{"op", "begin"},
                        {"version", kJournalVersion},
                        {"pid", ::getpid()},
                        {"history", history_block},
                        {"history_size", history_size}}
             .dump());
}

TransactionJournal::~TransactionJournal() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t TransactionJournal::reserve_save_ids(std::size_t count) {
  std::lock_guard lock(mutex_);
  const auto first = next_save_id_;
  next_save_id_ += count;
  return first;
}

std::filesystem::path TransactionJournal::saved_file(std::uint64_t id) const {
  return saved_dir(prefix_) / std::to_string(id);
}

void TransactionJournal::append(const std::string& line) {
  std::lock_guard lock(mutex_);
  write_line(fd_, line + "\n", journal_file(prefix_));
}

void TransactionJournal::record(const SaveBlock& block) {
  nlohmann::json paths = nlohmann::json::array();
  for (const auto& saved : block.paths) paths.push_back({saved.id, saved.path});
  append(nlohmann::json{{"op", "save"},
                        {"reason", block.reason == SaveBlock::Reason::unlink ? "unlink" : "clobber"},
                        {"package", block.package},
                        {"paths", std::move(paths)},
                        {"cleanup_dirs", block.cleanup_dirs}}
             .dump());
}

void TransactionJournal::record(const CreateBlock& block) {
  // One per linked package, listing all its files: streamed (keys sorted,
  // as nlohmann writes the other entries) rather than built as a tree.
  std::string line;
  util::JsonWriter writer(line, -1);
  writer.begin_object();
  writer.field("dirs", block.dirs);
  writer.field("keep_dirs", block.keep_dirs);
  writer.field("op", "create");
  writer.field("package", block.package);
  writer.field("paths", block.paths);
  writer.end_object();
  append(line);
}

void TransactionJournal::record(const PruneBlock& block) {
  nlohmann::json dirs = nlohmann::json::array();
  for (const auto& dir : block.dirs) dirs.push_back({dir.path, dir.mode});
  append(nlohmann::json{{"op", "prune"}, {"dirs", std::move(dirs)}}.dump());
}

void TransactionJournal::commit() { append(nlohmann::json{{"op", "commit"}}.dump()); }

static void read_entry(const nlohmann::json& entry, JournalContents& contents, bool& began) {
  const std::string op = entry.value("op", "");
  if (op == "begin") {
    began = true;
    contents.history_block = entry.value("history", "");
    contents.history_size = entry.value("history_size", std::int64_t{-1});
  } else if (op == "save") {
    SaveBlock block;
    block.reason = entry.value("reason", "unlink") == "clobber" ? SaveBlock::Reason::clobber
                                                                : SaveBlock::Reason::unlink;
    block.package = entry.value("package", "");
    for (const auto& item : entry.at("paths")) {
      block.paths.push_back({item.at(0).get<std::uint64_t>(), item.at(1).get<std::string>()});
    }
    block.cleanup_dirs = entry.value("cleanup_dirs", std::vector<std::string>{});
    contents.blocks.emplace_back(JournalContents::BlockKind::save, contents.saves.size());
    contents.saves.push_back(std::move(block));
    contents.undone.push_back(false);
  } else if (op == "create") {
    CreateBlock block;
    block.package = entry.value("package", "");
    block.dirs = entry.value("dirs", std::vector<std::string>{});
    block.paths = entry.value("paths", std::vector<std::string>{});
    block.keep_dirs = entry.value("keep_dirs", std::vector<std::string>{});
    contents.blocks.emplace_back(JournalContents::BlockKind::create, contents.creates.size());
    contents.creates.push_back(std::move(block));
    contents.undone.push_back(false);
  } else if (op == "prune") {
    PruneBlock block;
    for (const auto& item : entry.at("dirs")) {
      block.dirs.push_back({item.at(0).get<std::string>(), item.at(1).get<unsigned>()});
    }
    contents.blocks.emplace_back(JournalContents::BlockKind::prune, contents.prunes.size());
    contents.prunes.push_back(std::move(block));
    contents.undone.push_back(false);
  } else if (op == "undone") {
    const auto block = entry.value("block", std::size_t{0});
    if (block < contents.undone.size()) contents.undone[block] = true;
  } else if (op == "commit") {
    contents.committed = true;
  }
}

std::optional<JournalContents> read_journal(const std::filesystem::path& prefix) {
  const auto file = journal_file(prefix);
  const auto text = package::read_whole_file(file);
  if (!text) return std::nullopt;
  JournalContents contents;
  std::size_t start = 0;
  bool began = false;
  while (start < text->size()) {
    const auto end = text->find('\n', start);
    if (end == std::string::npos) break;  // a torn last line: its change never started
    const auto line = std::string_view(*text).substr(start, end - start);
    start = end + 1;
    try {
      read_entry(nlohmann::json::parse(line), contents, began);
    } catch (const nlohmann::json::exception&) {
      throw PrefixError("the transaction journal " + file.string() +
                        " is damaged; restore the prefix from a backup or recreate it");
    }
  }
  if (!began && !text->empty()) {
    throw PrefixError("the transaction journal " + file.string() +
                      " has no beginning; restore the prefix from a backup or recreate it");
  }
  return contents;
}


RecoveryOutcome settle_journal(const std::filesystem::path& prefix,
                               const std::function<void()>& after_undone_block) {
  const auto contents = read_journal(prefix);
  if (!contents) {
    std::error_code ignored;
    // A directory without a journal: killed right after creating it, or
    // right after finishing. Nothing in it matters.
    if (std::filesystem::exists(TransactionJournal::directory(prefix), ignored)) {
      std::filesystem::remove_all(TransactionJournal::directory(prefix), ignored);
    }
    return RecoveryOutcome::nothing_to_recover;
  }
  if (contents->committed) {
    append_history(prefix, *contents);
    std::error_code ignored;
    std::filesystem::remove_all(saved_dir(prefix), ignored);
    remove_empty_directories(prefix, *contents);
    finish_journal(prefix);
    return RecoveryOutcome::completed;
  }
  cut_torn_tail(prefix);
  for (std::size_t b = contents->blocks.size(); b-- > 0;) {
    if (contents->undone[b]) continue;
    const auto [kind, index] = contents->blocks[b];
    switch (kind) {
      case JournalContents::BlockKind::save: undo_save(prefix, contents->saves[index]); break;
      case JournalContents::BlockKind::create: undo_create(prefix, contents->creates[index]); break;
      case JournalContents::BlockKind::prune: undo_prune(prefix, contents->prunes[index]); break;
    }
    append_undone(prefix, b);
    if (after_undone_block) after_undone_block();
  }
  finish_journal(prefix);
  return RecoveryOutcome::rolled_back;
}

}  // namespace gpuenv::prefix
