#include "gpuenv/package/extract.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuenv/package/archive_format.hpp"
#include "gpuenv/package/archive_reader.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/package_metadata.hpp"
#include "gpuenv/package/source_archive.hpp"
#include "gpuenv/util/file_creation.hpp"

namespace gpuenv::package {

namespace {

constexpr int kMaxSymlinkDepth = 40;  // what Linux allows while resolving a path
constexpr std::string_view kPathsJson = "info/paths.json";
constexpr std::size_t kWriteGather = 1 << 20;  // bytes per write of a large member

std::string entry_text(const char* utf8, const char* native) {
  if (utf8 != nullptr) return utf8;
  return native != nullptr ? native : "";
}

// Which members get the modification time the archive gives them.
enum class ModificationTimes {
  all,          // sources: autotools compare configure.ac's with Makefile.in's
  where_read,   // packages: util::modification_time_matters (.py files)
};

// Writes the members of one package into a directory, checking each one
// before anything reaches the disk. All paths are relative to `root_fd`
// and every call is an *at() call, so the target's own path is looked up once.
class TreeWriter {
 public:
  // `refusal_advice` ends every refusal: what the user should do about an
  // archive that tried to escape (a package's channel, a source's recipe).
  // `keep`: keep the files with a prefix placeholder in memory while it has room.
  TreeWriter(std::filesystem::path archive, const std::filesystem::path& target,
             const ExtractLimits& limits, std::uint64_t total_limit, std::string refusal_advice,
             ModificationTimes times, std::shared_ptr<KeptBytesBudget> keep = nullptr)
      : archive_(std::move(archive)), target_(target), limits_(limits), total_limit_(total_limit),
        refusal_advice_(std::move(refusal_advice)), times_(times) {
    if (keep) {
      kept_ = std::make_shared<KeptFiles>();
      kept_->budget = std::move(keep);
    }
    std::error_code error;
    std::filesystem::create_directories(target, error);
    root_fd_ = ::open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd_ < 0) {
      throw PackageError("cannot extract " + archive_.string() + ": cannot create " +
                         target.string() + ": " + std::strerror(errno));
    }
    creation_modes_.emplace(root_fd_);
  }
  ~TreeWriter() { ::close(root_fd_); }
  TreeWriter(const TreeWriter&) = delete;
  TreeWriter& operator=(const TreeWriter&) = delete;

  void write(archive* reader, archive_entry* entry) {
    const std::string raw =
        entry_text(archive_entry_pathname_utf8(entry), archive_entry_pathname(entry));
    const std::string path = normalise(raw);
    if (path.empty()) return;  // the "./" entry of `tar -C dir .`
    check_member_path(raw, path);
    const std::string hardlink =
        entry_text(archive_entry_hardlink_utf8(entry), archive_entry_hardlink(entry));
    if (!hardlink.empty()) {
      write_hardlink(path, hardlink);
      return;
    }
    switch (archive_entry_filetype(entry)) {
      case AE_IFDIR:
        make_directories(path, mode_of(entry) | S_IRWXU);
        break;
      case AE_IFREG:
        write_file(reader, entry, path);
        break;
      case AE_IFLNK:
        write_symlink(path, entry_text(archive_entry_symlink_utf8(entry),
                                       archive_entry_symlink(entry)));
        break;
      default:
        refuse(path, "is a device file, FIFO or socket, which conda packages never contain");
    }
    ++summary_.files;
  }

  // Symbolic links are checked once all are known: a later link can change
  // where an earlier one leads.
  void check_symlinks() const {
    for (const auto& [link, target] : symlinks_) {
      if (!stays_inside(link, target)) {
        refuse(link, "is a symbolic link to '" + target +
                         "', which points outside the package directory");
      }
    }
  }

  // Sizes and digests are checked against paths.json from here on.
  void declare(std::string_view paths_json_text) {
    try {
      paths_ = parse_paths_json(paths_json_text, archive_.string() + "/info/paths.json");
    } catch (const PackageError&) {
      return;  // reading the cache entry reports it; until then, the total limit
    }
    declared_sizes_.clear();
    with_placeholder_.clear();
    for (const auto& entry : paths_->paths) {
      if (entry.path_type == PathType::hardlink && entry.size_in_bytes) {
        declared_sizes_[entry.path] = *entry.size_in_bytes;
      }
      if (entry.has_prefix()) with_placeholder_.insert(entry.path);
    }
  }

  // Compares every file written with its paths.json entry (which may have
  // come after the file, in a .tar.bz2).
  ExtractSummary finish() {
    if (metadata_complete_) summary_.metadata_files = std::move(metadata_files_);
    if (kept_ && !kept_->files.empty()) summary_.kept = kept_;
    if (paths_) {
      for (const auto& entry : paths_->paths) {
        const auto facts = written_.find(entry.path);
        if (facts == written_.end()) continue;
        if (auto mismatch = compare_with_declared(entry, facts->second)) {
          summary_.mismatches.push_back(std::move(*mismatch));
        }
      }
    }
    return summary_;
  }

 private:
  [[noreturn]] void refuse(const std::string& member, const std::string& why) const {
    throw PackageError("refusing to extract " + archive_.string() + ": member '" + member + "' " +
                       why + "; " + refusal_advice_);
  }

  [[noreturn]] void io_failure(const std::string& member, const char* action, int error) const {
    throw PackageError("cannot extract " + archive_.string() + " into " + target_.string() +
                       ": " + action + " '" + member + "' failed: " + std::strerror(error));
  }

  static mode_t mode_of(archive_entry* entry) {
    return static_cast<mode_t>(archive_entry_perm(entry)) & 0777;
  }

  // "./a//b/" -> "a/b".
  static std::string normalise(std::string_view path) {
    std::string result;
    result.reserve(path.size());
    std::size_t start = 0;
    while (start <= path.size()) {
      const auto end = std::min(path.find('/', start), path.size());
      const auto part = path.substr(start, end - start);
      if (!part.empty() && part != ".") {
        if (!result.empty()) result += '/';
        result.append(part);
      }
      start = end + 1;
    }
    return result;
  }

  void check_member_path(const std::string& raw, const std::string& path) const {
    if (!raw.empty() && raw.front() == '/') refuse(raw, "has an absolute path");
    std::size_t start = 0;
    while (start <= path.size()) {
      const auto end = std::min(path.find('/', start), path.size());
      if (std::string_view(path).substr(start, end - start) == "..") {
        refuse(raw, "leaves the target directory with '..'");
      }
      // A parent that is one of the archive's symbolic links would make
      // this member land wherever the link points.
      if (end < path.size() && symlinks_.contains(path.substr(0, end))) {
        refuse(raw, "is written through the symbolic link '" + path.substr(0, end) + "'");
      }
      start = end + 1;
    }
  }

  void make_directories(const std::string& path, mode_t mode) {
    if (known_directories_.contains(path)) return;
    const auto slash = path.find_last_of('/');
    if (slash != std::string::npos) make_directories(path.substr(0, slash), 0755);
    if (::mkdirat(root_fd_, path.c_str(), mode) != 0) {
      struct stat info {};
      if (errno != EEXIST || ::fstatat(root_fd_, path.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 ||
          !S_ISDIR(info.st_mode)) {
        io_failure(path, "creating the directory", errno == 0 ? EEXIST : errno);
      }
      ::fchmodat(root_fd_, path.c_str(), mode, 0);
    }
    known_directories_.insert(path);
  }

  void make_parent(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash != std::string::npos) make_directories(path.substr(0, slash), 0755);
  }

  // Tarballs may hold one path twice (the later one wins, as with tar).
  void remove_existing(const std::string& path) {
    if (known_directories_.contains(path)) refuse(path, "is both a directory and a file");
    if (::unlinkat(root_fd_, path.c_str(), 0) != 0 && errno != ENOENT) {
      io_failure(path, "replacing", errno);
    }
    symlinks_.erase(path);
  }

  void write_file(archive* reader, archive_entry* entry, const std::string& path) {
    make_parent(path);
    // Modes as the package has them; readable by us, to copy or rewrite.
    // Given at creation where the umask leaves them whole (the usual case:
    // one fchmod less per file); the descriptor is writable whatever the mode.
    const mode_t mode = mode_of(entry) | S_IRUSR;
    const bool mode_at_open = creation_modes_->open_gives(mode);
    const mode_t open_mode = mode_at_open ? mode : 0600;
    constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = ::openat(root_fd_, path.c_str(), kCreate, open_mode);
    if (fd < 0 && errno == EEXIST) {
      remove_existing(path);
      fd = ::openat(root_fd_, path.c_str(), kCreate, open_mode);
    }
    if (fd < 0) io_failure(path, "creating", errno);
    const auto declared = declared_sizes_.find(path);
    const std::optional<std::uint64_t> member_limit =
        declared == declared_sizes_.end()
            ? std::nullopt
            : std::optional(declared->second + limits_.member_slack_bytes);
    const bool is_paths_json = path == kPathsJson;
    // What is kept of the content as it streams by: metadata (paths.json is
    // needed at once), and a file with a placeholder while the budget allows.
    const bool is_metadata = is_metadata_file(path);
    // Budget taken for this file, given back unless the file ends up kept
    // (a refusal or an I/O failure below throws past it).
    struct Reservation {
      KeptBytesBudget* budget = nullptr;
      std::uint64_t bytes = 0;
      ~Reservation() {
        if (budget != nullptr) budget->give_back(bytes);
      }
    } reservation;
    if (kept_ && with_placeholder_.contains(path)) {
      const auto size = archive_entry_size(entry);
      if (size > 0 && static_cast<std::uint64_t>(size) <= kMaxKeptFileBytes &&
          kept_->budget->take(static_cast<std::uint64_t>(size))) {
        reservation.budget = kept_->budget.get();  // set in place: a temporary's destructor would give it back
        reservation.bytes = static_cast<std::uint64_t>(size);
      }
    }
    const std::uint64_t kept_taken = reservation.bytes;
    const bool keep_content = kept_taken > 0;
    // paths.json past max_metadata_bytes is refused by check_growth first.
    const std::uint64_t capture_limit =
        is_metadata ? std::max<std::uint64_t>(limits_.max_metadata_bytes, kMaxInfoFileSize) : kept_taken;
    bool capturing = is_metadata || keep_content;
    std::string captured;
    const auto capture = [&](const char* bytes, std::size_t size) {
      if (!capturing) return;
      if (captured.size() + size > capture_limit) {  // larger than it said or than metadata may be
        capturing = false;
        captured.clear();
        captured.shrink_to_fit();
        return;
      }
      captured.append(bytes, size);
    };
    StreamingHash sha256(HashAlgorithm::sha256);
    std::uint64_t hashed = 0;
    std::uint64_t end_of_data = 0;
    std::uint64_t gathered_at = 0;  // the file offset of gathered_'s first byte
    gathered_.clear();
    const auto write_at = [&](const char* bytes, std::size_t size, std::uint64_t offset) {
      while (size > 0) {
        const ssize_t written = ::pwrite(fd, bytes, size, static_cast<off_t>(offset));
        if (written < 0) {
          if (errno == EINTR) continue;
          const int error = errno;
          ::close(fd);
          gathered_.clear();
          io_failure(path, "writing", error);
        }
        bytes += written;
        size -= static_cast<std::size_t>(written);
        offset += static_cast<std::uint64_t>(written);
      }
    };
    const auto write_gathered = [&] {
      if (gathered_.empty()) return;
      write_at(gathered_.data(), gathered_.size(), gathered_at);
      gathered_.clear();
    };
    // Refuses before writing anything past a limit, so a bomb costs the
    // disk no more than the limit.
    const auto check_growth = [&](std::uint64_t end) {
      if (member_limit && end > *member_limit) {
        ::close(fd);
        refuse(path, "holds more than the " + std::to_string(declared->second) +
                         " bytes its info/paths.json declares (extraction stopped before " +
                         std::to_string(end) + " bytes)");
      }
      if (written_total_ + end > total_limit_) {
        ::close(fd);
        refuse(path, "makes the archive unpack to more than " + std::to_string(total_limit_) +
                         " bytes, the most an archive of " + std::to_string(archive_size()) +
                         " bytes may hold (a decompression bomb?)");
      }
      if (is_paths_json && end > limits_.max_metadata_bytes) {
        ::close(fd);
        refuse(path, "is more than " + std::to_string(limits_.max_metadata_bytes) +
                         " bytes, more than metadata can be");
      }
    };
    const auto hash_zeros_until = [&](std::uint64_t position) {
      static const std::string zeros(1 << 16, '\0');  // a sparse member's holes
      while (hashed < position) {
        const auto count = std::min<std::uint64_t>(position - hashed, zeros.size());
        sha256.update(zeros.data(), count);
        capture(zeros.data(), count);
        hashed += count;
      }
    };
    while (true) {
      const void* block = nullptr;
      std::size_t size = 0;
      la_int64_t offset = 0;
      const int status = archive_read_data_block(reader, &block, &size, &offset);
      if (status == ARCHIVE_EOF) break;
      if (status < ARCHIVE_WARN) {
        ::close(fd);
        throw PackageError("cannot extract " + archive_.string() + ": member '" + path + "': " +
                           archive_error_text(reader) +
                           "; the file is corrupt or truncated: delete it and download it again");
      }
      check_growth(static_cast<std::uint64_t>(offset) + size);
      const char* bytes = static_cast<const char*>(block);
      if (static_cast<std::uint64_t>(offset) == hashed) {
        sha256.update(bytes, size);
        capture(bytes, size);
        hashed += size;
      } else if (static_cast<std::uint64_t>(offset) > hashed) {
        hash_zeros_until(static_cast<std::uint64_t>(offset));
        sha256.update(bytes, size);
        capture(bytes, size);
        hashed += size;
      }
      const auto block_end = static_cast<std::uint64_t>(offset) + size;
      // libarchive hands over a large file in 64 KiB blocks: they are
      // gathered into writes of up to kWriteGather (a 20 MB library: 20
      // writes, not 320). A block that is not contiguous (sparse) or big
      // enough on its own goes out as it is.
      if (!gathered_.empty() && static_cast<std::uint64_t>(offset) != gathered_at + gathered_.size()) {
        write_gathered();
      }
      if (gathered_.empty() && size >= kWriteGather) {
        write_at(bytes, size, static_cast<std::uint64_t>(offset));
      } else {
        if (gathered_.empty()) gathered_at = static_cast<std::uint64_t>(offset);
        gathered_.append(bytes, size);
        if (gathered_.size() >= kWriteGather) write_gathered();
      }
      end_of_data = std::max(end_of_data, block_end);
    }
    write_gathered();
    // A sparse member's trailing hole is not in any data block.
    const auto size = static_cast<std::uint64_t>(std::max<la_int64_t>(archive_entry_size(entry), 0));
    if (size > end_of_data) {
      check_growth(size);
      hash_zeros_until(size);
      if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
        const int error = errno;
        ::close(fd);
        io_failure(path, "writing", error);
      }
    }
    if (!mode_at_open) ::fchmod(fd, mode);
    if (archive_entry_mtime_is_set(entry) &&
        (times_ == ModificationTimes::all || util::modification_time_matters(path))) {
      const timespec times[2] = {{0, UTIME_OMIT},
                                 {archive_entry_mtime(entry), archive_entry_mtime_nsec(entry)}};
      ::futimens(fd, times);
    }
    if (::close(fd) != 0) io_failure(path, "writing", errno);
    const auto file_size = std::max(size, end_of_data);
    summary_.bytes += file_size;
    written_total_ += file_size;
    written_[path] = {sha256.finish_hex(), file_size};
    if (is_paths_json && capturing) declare(captured);
    if (is_metadata) {
      // One that read_extracted_metadata would refuse is read back, to be refused there.
      if (capturing && captured.size() <= kMaxInfoFileSize) {
        metadata_files_[path] = captured;
      } else {
        metadata_complete_ = false;
      }
    }
    if (keep_content && capturing && captured.size() == kept_taken) {
      kept_->files[path] = KeptFile{std::move(captured), mode};
      kept_->taken += kept_taken;
      reservation.bytes = 0;  // KeptFiles gives it back
    }
  }

  std::uint64_t archive_size() const {
    std::error_code ignored;
    const auto size = std::filesystem::file_size(archive_, ignored);
    return ignored ? 0 : size;
  }

  void write_symlink(const std::string& path, const std::string& target) {
    if (target.empty()) refuse(path, "is a symbolic link without a target");
    if (target.front() == '/') {
      refuse(path, "is a symbolic link to the absolute path '" + target +
                       "', which points outside the package directory");
    }
    make_parent(path);
    if (::symlinkat(target.c_str(), root_fd_, path.c_str()) != 0) {
      if (errno != EEXIST) io_failure(path, "creating the symbolic link", errno);
      remove_existing(path);
      if (::symlinkat(target.c_str(), root_fd_, path.c_str()) != 0) {
        io_failure(path, "creating the symbolic link", errno);
      }
    }
    symlinks_[path] = target;
  }

  void write_hardlink(const std::string& path, const std::string& raw_target) {
    const std::string target = normalise(raw_target);
    if (target.empty() || raw_target.front() == '/') {
      refuse(path, "is a hard link to '" + raw_target + "', outside the package directory");
    }
    check_member_path(raw_target, target);
    make_parent(path);
    if (::linkat(root_fd_, target.c_str(), root_fd_, path.c_str(), 0) != 0) {
      if (errno != EEXIST) io_failure(path, "creating the hard link", errno);
      remove_existing(path);
      if (::linkat(root_fd_, target.c_str(), root_fd_, path.c_str(), 0) != 0) {
        io_failure(path, "creating the hard link", errno);
      }
    }
    if (const auto link = symlinks_.find(target); link != symlinks_.end()) {
      symlinks_[path] = link->second;  // a hard link to a symlink is that symlink again
    }
    if (const auto facts = written_.find(target); facts != written_.end()) {
      written_[path] = facts->second;
    }
    ++summary_.files;
  }

  // Resolves `target` (a link's content, relative to the link's directory)
  // the way the kernel would inside the package directory, following the
  // archive's own symbolic links, and says whether it stays inside.
  bool stays_inside(const std::string& link, const std::string& target) const {
    std::vector<std::string> stack;
    const auto slash = link.find_last_of('/');
    if (slash != std::string::npos) split_into(link.substr(0, slash), stack);
    int depth = 0;
    return resolve_into(target, stack, depth);
  }

  static void split_into(std::string_view path, std::vector<std::string>& parts) {
    std::size_t start = 0;
    while (start <= path.size()) {
      const auto end = std::min(path.find('/', start), path.size());
      if (end > start) parts.emplace_back(path.substr(start, end - start));
      start = end + 1;
    }
  }

  bool resolve_into(std::string_view target, std::vector<std::string>& stack, int& depth) const {
    if (!target.empty() && target.front() == '/') return false;
    std::vector<std::string> parts;
    split_into(target, parts);
    for (const auto& part : parts) {
      if (part == ".") continue;
      if (part == "..") {
        if (stack.empty()) return false;
        stack.pop_back();
        continue;
      }
      stack.push_back(part);
      std::string current;
      for (const auto& piece : stack) current += (current.empty() ? "" : "/") + piece;
      const auto link = symlinks_.find(current);
      if (link == symlinks_.end()) continue;
      if (++depth > kMaxSymlinkDepth) return false;  // a loop: the kernel refuses it too
      stack.pop_back();
      if (!resolve_into(link->second, stack, depth)) return false;
    }
    return true;
  }

  std::filesystem::path archive_;
  std::filesystem::path target_;
  int root_fd_ = -1;
  std::unordered_set<std::string> known_directories_;
  std::unordered_map<std::string, std::string> symlinks_;
  ExtractLimits limits_;
  std::uint64_t total_limit_;
  std::string refusal_advice_;
  ModificationTimes times_;
  std::optional<util::CreationModes> creation_modes_;
  std::string gathered_;  // write_file's blocks not written yet (kept: its capacity is reused)
  std::uint64_t written_total_ = 0;
  std::optional<PathsJson> paths_;
  std::unordered_map<std::string, std::uint64_t> declared_sizes_;
  std::unordered_set<std::string> with_placeholder_;  // paths.json's files with a prefix placeholder
  std::shared_ptr<KeptFiles> kept_;                   // set when a budget was given
  std::map<std::string, std::string> metadata_files_;
  bool metadata_complete_ = true;
  std::unordered_map<std::string, FileFacts> written_;  // regular files, hashed as written
  ExtractSummary summary_;
};

}  // namespace

std::uint64_t default_extract_limit(std::uint64_t archive_size) {
  constexpr std::uint64_t kFloor = 1ull << 30;
  constexpr std::uint64_t kCap = 64ull << 30;
  constexpr std::uint64_t kRatio = 1000;
  if (archive_size > kCap / kRatio) return kCap;
  return std::clamp(archive_size * kRatio, kFloor, kCap);
}

bool KeptBytesBudget::take(std::uint64_t bytes) {
  auto left = left_.load(std::memory_order_relaxed);
  while (left >= bytes) {
    if (left_.compare_exchange_weak(left, left - bytes, std::memory_order_relaxed)) return true;
  }
  return false;
}

ExtractSummary extract_package(const std::filesystem::path& archive,
                               const std::filesystem::path& target_dir,
                               const ExtractLimits& limits,
                               const std::shared_ptr<KeptBytesBudget>& keep) {
  std::error_code size_error;
  const auto archive_size = std::filesystem::file_size(archive, size_error);
  const auto total_limit =
      limits.max_total_bytes.value_or(default_extract_limit(size_error ? 0 : archive_size));
  TreeWriter writer(archive, target_dir, limits, total_limit,
                    "the package is malformed or malicious, report it to the channel that serves it",
                    ModificationTimes::where_read, keep);
  // A .conda's info member is walked first, whatever the zip's order
  // (for_each_member), so its paths.json bounds every member of pkg-*.
  for_each_member(archive, MemberSelection::everything, [&](struct archive* reader, archive_entry* entry) {
    writer.write(reader, entry);
    return true;
  });
  writer.check_symlinks();
  return writer.finish();
}

ExtractSummary extract_source_archive(const std::filesystem::path& archive,
                                     const std::filesystem::path& target_dir, std::uint64_t max_total_bytes) {
  ExtractLimits limits;
  limits.max_total_bytes = max_total_bytes;
  TreeWriter writer(archive, target_dir, limits, max_total_bytes,
                    "the source archive is malformed or malicious: check the recipe's url and hash",
                    ModificationTimes::all);
  struct ReaderDeleter {
    void operator()(struct archive* reader) const { archive_read_free(reader); }
  };
  std::unique_ptr<struct archive, ReaderDeleter> reader(archive_read_new());
  archive_read_support_format_tar(reader.get());
  archive_read_support_format_zip(reader.get());
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_filter_bzip2(reader.get());
  archive_read_support_filter_xz(reader.get());
  archive_read_support_filter_zstd(reader.get());
  const auto unreadable = [&](const std::string& why) {
    return PackageError("cannot extract source archive " + archive.string() + ": " + why +
                        "; it is corrupt, truncated or not a .tar.gz/.tar.bz2/.tar.xz/.tar.zst/.zip archive");
  };
  if (archive_read_open_filename(reader.get(), archive.c_str(), 1 << 16) != ARCHIVE_OK) {
    throw unreadable(archive_error_text(reader.get()));
  }
  while (true) {
    archive_entry* entry = nullptr;
    const int status = archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status < ARCHIVE_WARN) throw unreadable(archive_error_text(reader.get()));
    writer.write(reader.get(), entry);
  }
  writer.check_symlinks();
  return writer.finish();
}

}  // namespace gpuenv::package
