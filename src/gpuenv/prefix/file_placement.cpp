#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/subprocess.hpp"
#include "gpuenv/prefix/file_placement.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/prefix/prefix_replacement.hpp"

namespace gpuenv::prefix {

namespace {

constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
constexpr std::size_t kWriteBuffer = 1u << 20;  // replaced output is written in pieces this big

// Writes every byte (util::write_all retries short writes and EINTR).
bool write_all(int fd, const char* data, std::size_t size) {
  return util::write_all(fd, std::string_view(data, size));
}

// Copies by the kernel where it can (copy_file_range), by read/write where
// it cannot (a cache on another filesystem: EXDEV; some filesystems, old
// kernels). `kernel_copy` is cleared the first time the kernel refuses, so
// the files after it go straight to read/write instead of one failing call
// each.
bool copy_contents(int in, int out, std::uint64_t size, bool& kernel_copy) {
  std::uint64_t left = size;
  while (kernel_copy && left > 0) {
    const ssize_t copied = ::copy_file_range(in, nullptr, out, nullptr, left, 0);
    if (copied > 0) {
      left -= static_cast<std::uint64_t>(copied);
      continue;
    }
    if (copied == 0) return true;  // the source shrank
    if (errno == EINTR) continue;
    if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) return false;
    kernel_copy = false;
  }
  if (left == 0) return true;
  // No bigger than the file and not zeroed: a zeroed 1 MiB buffer per file
  // cost more than copying a small file (8.6% of a 20,000-file install
  // from a cache on another filesystem went to memset).
  const auto capacity = static_cast<std::size_t>(std::min<std::uint64_t>(left, kWriteBuffer));
  const std::unique_ptr<char[]> buffer(new char[capacity]);
  while (true) {
    const ssize_t count = ::read(in, buffer.get(), capacity);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return false;
    if (count == 0) return true;
    if (!write_all(out, buffer.get(), static_cast<std::size_t>(count))) return false;
  }
}

}  // namespace

PrefixDirectories::Parent FilePlacement::parent_of(const std::string& target) {
  auto parent = targets_.parent_of(target);
  if (parent.fd < 0) {
    throw PrefixError("cannot install " + describe_unreachable(prefix_, target, parent.error));
  }
  return parent;
}

int FilePlacement::create_target(const std::string& target, unsigned mode, bool& mode_given) {
  const auto parent = parent_of(target);
  // A mode the umask would cut is set after the content is written.
  mode_given = creation_modes_.open_gives(static_cast<mode_t>(mode));
  const int out = ::openat(parent.fd, parent.name.c_str(), kCreate, mode_given ? mode : 0600);
  if (out < 0) fail("cannot create", target, errno);
  return out;
}

int FilePlacement::create_target_closing(const std::string& target, unsigned mode, bool& mode_given,
                                         int source) {
  try {
    return create_target(target, mode, mode_given);
  } catch (...) {
    ::close(source);
    throw;
  }
}

void FilePlacement::remove_target(const std::string& target) {
  const auto parent = targets_.parent_of(target);
  if (parent.fd >= 0) ::unlinkat(parent.fd, parent.name.c_str(), 0);
}

void FilePlacement::fail(const std::string& what, const std::string& path, int error) const {
  throw PrefixError(what + " " + prefix_ + "/" + path + ": " + std::strerror(error));
}

bool FilePlacement::source_is_symlink(const std::string& source) const {
  struct stat info {};
  return ::fstatat(source_fd_, source.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISLNK(info.st_mode);
}

PlacedFile FilePlacement::link_or_copy(const std::string& source, const std::string& target,
                                       const package::PathEntry& entry, bool allow_hardlink,
                                       bool& cross_device) {
  if (allow_hardlink && !entry.no_link) {
    const auto parent = parent_of(target);
    if (::linkat(source_fd_, source.c_str(), parent.fd, parent.name.c_str(), 0) == 0) {
      return {entry.sha256, entry.size_in_bytes.value_or(0), false};
    }
    if (errno == EXDEV || errno == EPERM || errno == EMLINK) {
      // Another filesystem, or one without hard links: copies from now on
      // (EMLINK: this one file has too many links; just copy it).
      if (errno != EMLINK) cross_device = true;
    } else if (errno == ENOENT) {
      throw PrefixError("the package cache entry " + source_dir_ + " lacks " + source +
                        ", which its info/paths.json lists; delete the entry so it is "
                        "extracted again");
    } else {
      fail("cannot create", target, errno);
    }
  }
  return copy(source, target, entry);
}

PlacedFile FilePlacement::copy(const std::string& source, const std::string& target,
                               const package::PathEntry& entry) {
  const int in = ::openat(source_fd_, source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    throw PrefixError("cannot read " + source_dir_ + "/" + source + ": " + std::strerror(errno));
  }
  struct stat info {};
  ::fstat(in, &info);
  bool mode_given = false;
  const int out = create_target_closing(target, info.st_mode & 07777, mode_given, in);
  const bool copied = copy_contents(in, out, static_cast<std::uint64_t>(info.st_size), kernel_copy_);
  const int error = errno;
  ::close(in);
  if (!mode_given) ::fchmod(out, info.st_mode & 07777);
  // Keep a .py file's modification time: shipped .pyc files compare it.
  if (util::modification_time_matters(target)) {
    const timespec times[2] = {{0, UTIME_OMIT}, info.st_mtim};
    ::futimens(out, times);
  }
  if (::close(out) != 0 || !copied) fail("cannot write", target, copied ? errno : error);
  return {entry.sha256, static_cast<std::uint64_t>(info.st_size), true};
}

void FilePlacement::fail_placeholder_too_short(const std::string& target,
                                               const package::PathEntry& entry) const {
  throw PrefixError("cannot install " + target + ": it is a binary file whose prefix "
                    "placeholder (" + std::to_string(entry.prefix_placeholder.size()) +
                    " characters) is shorter than the prefix path " + prefix_ + " (" +
                    std::to_string(prefix_.size()) + " characters); use a shorter prefix "
                    "path, or rebuild the package with a longer placeholder");
}

PlacedFile FilePlacement::replace_prefix(const std::string& source, const std::string& target,
                                         const package::PathEntry& entry, const package::KeptFile* kept) {
  const bool binary = entry.file_mode == package::FileMode::binary;
  if (kept != nullptr) {
    // Small enough to have been kept whole: the whole-file rewrite, one write.
    if (binary) {
      const auto replaced = replace_prefix_in_binary(kept->content, entry.prefix_placeholder, prefix_);
      if (!replaced) fail_placeholder_too_short(target, entry);
      return write(target, *replaced, kept->mode);
    }
    return write(target, replace_prefix_in_text(kept->content, entry.prefix_placeholder, prefix_), kept->mode);
  }
  const int in = ::openat(source_fd_, source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    throw PrefixError("cannot read " + source_dir_ + "/" + source + ": " + std::strerror(errno));
  }
  struct stat info {};
  ::fstat(in, &info);
  if (static_cast<std::uint64_t>(info.st_size) <= package::kMaxKeptFileBytes) {
    // Small (scripts, .pc and CMake files: nearly all of them): read whole
    // and rewritten as a kept file is, without the streaming machinery.
    package::KeptFile whole;
    whole.mode = info.st_mode & 07777;
    whole.content.resize(static_cast<std::size_t>(info.st_size));
    // An entry that shrank since: what is there is rewritten, as streaming does.
    const auto filled = util::read_at(in, whole.content.data(), whole.content.size(), 0);
    const int read_error = errno;
    ::close(in);
    if (filled < 0) {
      throw PrefixError("cannot read " + source_dir_ + "/" + source + ": " + std::strerror(read_error));
    }
    whole.content.resize(static_cast<std::size_t>(filled));
    return replace_prefix(source, target, entry, &whole);
  }
  const ReadAt read = [&](std::uint64_t offset, char* buffer, std::size_t size) -> std::size_t {
    // The end is known from fstat: no read to find it (cache entries do not change).
    if (offset >= static_cast<std::uint64_t>(info.st_size)) return 0;
    while (true) {
      const ssize_t count = ::pread(in, buffer, size, static_cast<off_t>(offset));
      if (count >= 0) return static_cast<std::size_t>(count);
      if (errno == EINTR) continue;
      throw PrefixError("cannot read " + source_dir_ + "/" + source + ": " + std::strerror(errno));
    }
  };
  // The file is streamed (it may be gigabytes), hashed as it is written.
  bool mode_given = false;
  const int out = create_target_closing(target, info.st_mode & 07777, mode_given, in);
  package::StreamingHash sha256(package::HashAlgorithm::sha256);
  std::uint64_t size = 0;
  std::string pending;
  const auto flush = [&] {
    if (!write_all(out, pending.data(), pending.size())) fail("cannot write", target, errno);
    pending.clear();
  };
  const WriteOut write = [&](std::string_view bytes) {
    sha256.update(bytes);
    size += bytes.size();
    pending.append(bytes);
    if (pending.size() >= kWriteBuffer) flush();
  };
  bool replaced = false;
  try {
    // A window no bigger than the file: most files with a placeholder are
    // small scripts, and a 1 MiB window would be allocated and zeroed for each.
    const auto window = static_cast<std::size_t>(
        std::clamp<std::uint64_t>(static_cast<std::uint64_t>(info.st_size) + 1, 4096, kWriteBuffer));
    replaced = stream_prefix_replacement(read, write, entry.prefix_placeholder, prefix_, binary, window);
    if (replaced) flush();
  } catch (...) {
    ::close(in);
    ::close(out);
    remove_target(target);
    throw;
  }
  if (!replaced) {
    ::close(in);
    ::close(out);
    remove_target(target);
    fail_placeholder_too_short(target, entry);
  }
  ::close(in);
  if (!mode_given) ::fchmod(out, info.st_mode & 07777);
  if (::close(out) != 0) fail("cannot write", target, errno);
  return {sha256.finish_hex(), size, true};
}

void FilePlacement::symlink(const std::string& source, const std::string& target) {
  std::vector<char> buffer(4096);
  const ssize_t length = ::readlinkat(source_fd_, source.c_str(), buffer.data(), buffer.size());
  if (length < 0) {
    throw PrefixError("cannot read the symbolic link " + source_dir_ + "/" + source + ": " +
                      std::strerror(errno) + "; delete the cache entry so it is extracted again");
  }
  const std::string link(buffer.data(), static_cast<std::size_t>(length));
  const auto parent = parent_of(target);
  if (::symlinkat(link.c_str(), parent.fd, parent.name.c_str()) != 0) {
    fail("cannot create the symbolic link", target, errno);
  }
}

PlacedFile FilePlacement::write(const std::string& target, std::string_view content, unsigned mode) {
  bool mode_given = false;
  const int out = create_target(target, mode, mode_given);
  const bool written = write_all(out, content.data(), content.size());
  const int error = errno;
  if (!mode_given) ::fchmod(out, mode);
  if (::close(out) != 0 || !written) fail("cannot write", target, written ? errno : error);
  return {package::sha256_hex(content), content.size(), true};
}

}  // namespace gpuenv::prefix
