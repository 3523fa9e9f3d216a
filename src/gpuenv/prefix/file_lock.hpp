// Exclusive locks between processes (and threads) on a lock file.
//
// flock(2) locks belong to an open file description: the kernel drops them
// when the process dies, SIGKILL included, so a crashed gpuenv never leaves
// a prefix or a package cache locked. Each FileLock opens its own
// description, so two threads of one process exclude each other too.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace gpuenv::prefix {

class FileLock {
 public:
  // Called once when the lock is busy, before waiting: "waiting for the
  // lock on ... held by process 1234".
  using WaitNotice = std::function<void(const std::string& message)>;

  // Takes the lock on `lock_file` (created, with its parent directory, when
  // missing), waiting at most `timeout` for another holder. Throws
  // PrefixError naming the file and the holder's pid when the wait times
  // out or the file cannot be created.
  static FileLock acquire(const std::filesystem::path& lock_file,
                          std::chrono::milliseconds timeout = std::chrono::hours(1),
                          const WaitNotice& notice = {});

  // Takes the lock when free; nullopt when another holder has it.
  static std::optional<FileLock> try_acquire(const std::filesystem::path& lock_file);

  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  FileLock(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  void release() noexcept;

  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace gpuenv::prefix
