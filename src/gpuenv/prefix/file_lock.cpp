#include "gpuenv/prefix/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "gpuenv/prefix/prefix_error.hpp"

namespace gpuenv::prefix {

namespace {

int open_lock_file(const std::filesystem::path& lock_file) {
  std::error_code ignored;
  std::filesystem::create_directories(lock_file.parent_path(), ignored);
  const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw PrefixError("cannot create the lock file " + lock_file.string() + ": " +
                      std::strerror(errno) + "; check that the directory is writable");
  }
  return fd;
}

// The holder writes its pid into the file so that waiters can name it.
void record_holder(int fd) {
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const auto written = ::pwrite(fd, pid.data(), pid.size(), 0);
  }
}

std::string holder_of(int fd) {
  char buffer[32] = {};
  const ssize_t count = ::pread(fd, buffer, sizeof buffer - 1, 0);
  if (count <= 0) return "another process";
  std::string pid(buffer, static_cast<std::size_t>(count));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "another process" : "process " + pid;
}

}  // namespace

FileLock FileLock::acquire(const std::filesystem::path& lock_file,
                           std::chrono::milliseconds timeout, const WaitNotice& notice) {
  const int fd = open_lock_file(lock_file);
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    record_holder(fd);
    return FileLock(lock_file, fd);
  }
  if (notice) {
    notice("waiting for the lock on " + lock_file.string() + ", held by " + holder_of(fd));
  }
  // flock has no timed wait: poll, with a short interval at first so a
  // lock held for a few milliseconds costs little.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto interval = std::chrono::milliseconds(1);
  while (true) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      record_holder(fd);
      return FileLock(lock_file, fd);
    }
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int error = errno;
      ::close(fd);
      throw PrefixError("cannot lock " + lock_file.string() + ": " + std::strerror(error));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      const auto holder = holder_of(fd);
      ::close(fd);
      throw PrefixError("gave up waiting for the lock on " + lock_file.string() + ", held by " +
                        holder + "; wait for that gpuenv (or conda-compatible tool) to finish, "
                        "or end it if it hangs");
    }
    std::this_thread::sleep_for(interval);
    interval = std::min(interval * 2, std::chrono::milliseconds(50));
  }
}

std::optional<FileLock> FileLock::try_acquire(const std::filesystem::path& lock_file) {
  const int fd = open_lock_file(lock_file);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  record_holder(fd);
  return FileLock(lock_file, fd);
}

FileLock::FileLock(FileLock&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() { release(); }

void FileLock::release() noexcept {
  if (fd_ < 0) return;
  // Closing the description drops the lock. The file stays: deleting it
  // would let a waiter lock an unlinked inode while a newcomer locks a new one.
  ::close(fd_);
  fd_ = -1;
}

}  // namespace gpuenv::prefix
