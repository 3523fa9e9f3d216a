#include "gpuenv/package/file_content.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include "gpuenv/package/package_error.hpp"

namespace gpuenv::package {

namespace {
[[noreturn]] void fail(const char* action, const std::filesystem::path& path, int error) {
  throw PackageError(std::string("cannot ") + action + " " + path.string() + ": " +
                     std::strerror(error));
}

void write_all(int fd, std::string_view content, const std::filesystem::path& path) {
  while (!content.empty()) {
    const ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      fail("write", path, error);
    }
    content.remove_prefix(static_cast<std::size_t>(written));
  }
}
}  // namespace

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    fail("read", path, errno);
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    const int error = S_ISDIR(info.st_mode) ? EISDIR : errno;
    ::close(fd);
    fail("read", path, error);
  }
  std::string content(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t filled = 0;
  while (true) {
    if (filled == content.size()) content.resize(content.size() + 4096);  // it grew meanwhile
    const ssize_t count = ::read(fd, content.data() + filled, content.size() - filled);
    if (count < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      fail("read", path, error);
    }
    if (count == 0) break;
    filled += static_cast<std::size_t>(count);
  }
  ::close(fd);
  content.resize(filled);
  return content;
}

void write_whole_file_atomically(const std::filesystem::path& path, std::string_view content) {
  auto temporary = path;
  // pid and thread make the name unique among concurrent writers.
  temporary += ".tmp-" + std::to_string(::getpid()) + "-" +
               std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create", temporary, errno);
  write_all(fd, content, temporary);
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail("write", path, error);
  }
}

}  // namespace gpuenv::package
