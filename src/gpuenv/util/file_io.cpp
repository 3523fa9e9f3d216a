#include "gpuenv/util/file_io.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gpuenv::util {

std::optional<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string content;
  char buffer[4096];
  while (content.size() < max_bytes) {
    const ssize_t got = ::read(fd, buffer, std::min(sizeof buffer, max_bytes - content.size()));
    if (got < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return std::nullopt;
    }
    if (got == 0) break;
    content.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return content;
}

std::string describe_byte_count(std::uintmax_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

namespace {

// The one reader behind read_text_file_at_most and read_regular_file_at_most.
std::expected<std::string, FileReadError> read_at_most(const std::filesystem::path& path,
                                                       std::uintmax_t max_bytes, bool regular_only) {
  const auto failure = [&](FileReadError::Kind kind, std::string message) {
    return std::unexpected(FileReadError{kind, std::move(message)});
  };
  // Opening a FIFO blocks until someone writes to it; O_NONBLOCK does not
  // change how a regular file reads.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK : 0));
  if (fd < 0) {
    if (errno == ENOENT || (regular_only && errno == ENOTDIR)) {
      return failure(FileReadError::Kind::missing, path.string() + ": no such file");
    }
    return failure(FileReadError::Kind::unreadable,
                   path.string() + ": cannot be read (" + std::strerror(errno) + "); check its permissions");
  }
  const auto too_large = [&](std::string size) {
    return failure(FileReadError::Kind::too_large,
                   path.string() + " is larger than the " + describe_byte_count(max_bytes) +
                       " gpuenv reads from such a file" + size + "; check that it is the file you meant");
  };
  struct stat info {};
  const bool known_size = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  if (regular_only && !known_size) {
    ::close(fd);
    return failure(FileReadError::Kind::unreadable, path.string() + ": cannot be read (not a regular file)");
  }
  if (known_size && static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
    ::close(fd);
    return too_large(" (it holds " + std::to_string(info.st_size) + " bytes)");
  }
  // Read straight into the result, sized from fstat when known; a FIFO or a
  // device reports no size, so it grows, and one byte past the limit tells.
  std::string content(known_size ? static_cast<std::size_t>(info.st_size) : 0, '\0');
  std::size_t filled = 0;
  for (;;) {
    if (filled == content.size()) content.resize(content.size() + (known_size ? 4096 : 65536));
    const ssize_t got = ::read(fd, content.data() + filled, content.size() - filled);
    if (got < 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      ::close(fd);
      return failure(FileReadError::Kind::unreadable, path.string() + ": cannot be read (" + reason + ")");
    }
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
    if (filled > max_bytes) {
      ::close(fd);
      return too_large("");
    }
  }
  ::close(fd);
  content.resize(filled);
  return content;
}

}  // namespace

std::expected<std::string, FileReadError> read_text_file_at_most(const std::filesystem::path& path,
                                                                 std::uintmax_t max_bytes) {
  return read_at_most(path, max_bytes, false);
}

std::expected<std::string, FileReadError> read_regular_file_at_most(const std::filesystem::path& path,
                                                                    std::uintmax_t max_bytes) {
  return read_at_most(path, max_bytes, true);
}

std::string_view trim(std::string_view text) {
  constexpr std::string_view whitespace = " \t\r\n\v\f";
  const auto first = text.find_first_not_of(whitespace);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(whitespace);
  return text.substr(first, last - first + 1);
}

std::optional<FileIdentity> file_identity(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  FileIdentity identity;
  char resolved[PATH_MAX];
  identity.real_path = ::realpath(path.c_str(), resolved) != nullptr ? resolved : path.string();
  identity.size = static_cast<std::uint64_t>(info.st_size);
  identity.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 +
                      info.st_mtim.tv_nsec;
  return identity;
}

std::vector<std::string> list_directory(const std::filesystem::path& directory) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool is_directory(const std::filesystem::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::optional<std::string> write_file_atomically(const std::filesystem::path& path,
                                                 std::string_view content) {
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) {
    return "cannot create " + path.parent_path().string() + ": " + error.message();
  }
  std::string temporary = path.string() + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) return "cannot create a file in " + path.parent_path().string() + ": " +
                     std::strerror(errno);
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t put = ::write(fd, content.data() + written, content.size() - written);
    if (put < 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(temporary.c_str());
      return "cannot write " + temporary + ": " + reason;
    }
    written += static_cast<std::size_t>(put);
  }
  // mkstemp creates 0600; the cache holds nothing secret and may be shared.
  ::fchmod(fd, 0644);
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    return "cannot replace " + path.string() + ": " + reason;
  }
  return std::nullopt;
}

std::int64_t read_at(int fd, char* buffer, std::size_t size, std::uint64_t offset) {
  std::size_t filled = 0;
  while (filled < size) {
    const ssize_t count = ::pread(fd, buffer + filled, size - filled, static_cast<off_t>(offset + filled));
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return -1;
    if (count == 0) break;
    filled += static_cast<std::size_t>(count);
  }
  return static_cast<std::int64_t>(filled);
}

}  // namespace gpuenv::util
