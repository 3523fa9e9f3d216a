#include "gpuenv/repodata/partial_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

namespace gpuenv::repodata {

std::expected<PartialFile, std::string> PartialFile::create_beside(
    std::filesystem::path final_path) {
  // open(O_EXCL) with mode 0666 rather than mkstemp: mkstemp creates 0600
  // files, and a cache shared by a group or read by other conda tools needs
  // the permissions the user's umask gives.
  std::random_device entropy;
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".part-%d-%08x", static_cast<int>(::getpid()),
                  static_cast<unsigned>(entropy()));
    std::filesystem::path temp_path = final_path.string() + suffix;
    const int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return PartialFile(std::move(final_path), std::move(temp_path), fd);
    if (errno != EEXIST) {
      return std::unexpected("cannot create a file in " + final_path.parent_path().string() +
                             ": " + std::strerror(errno));
    }
  }
  return std::unexpected("cannot find a free temporary file name beside " + final_path.string());
}

PartialFile::PartialFile(std::filesystem::path final_path, std::filesystem::path temp_path, int fd)
    : final_path_(std::move(final_path)), temp_path_(std::move(temp_path)), fd_(fd) {}

PartialFile::PartialFile(PartialFile&& other) noexcept
    : final_path_(std::move(other.final_path_)),
      temp_path_(std::move(other.temp_path_)),
      fd_(std::exchange(other.fd_, -1)),
      bytes_written_(other.bytes_written_),
      error_(std::move(other.error_)) {
  other.temp_path_.clear();
}

PartialFile& PartialFile::operator=(PartialFile&& other) noexcept {
  if (this != &other) {
    discard();
    final_path_ = std::move(other.final_path_);
    temp_path_ = std::move(other.temp_path_);
    other.temp_path_.clear();
    fd_ = std::exchange(other.fd_, -1);
    bytes_written_ = other.bytes_written_;
    error_ = std::move(other.error_);
  }
  return *this;
}

PartialFile::~PartialFile() { discard(); }

void PartialFile::discard() noexcept {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!temp_path_.empty()) {
    std::error_code ignored;
    std::filesystem::remove(temp_path_, ignored);
    temp_path_.clear();
  }
}

bool PartialFile::write(std::string_view bytes) {
  if (fd_ < 0) {
    if (error_.empty()) error_ = "the file is already closed";
    return false;
  }
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      error_ = "cannot write " + temp_path_.string() + ": " + std::strerror(errno);
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
    bytes_written_ += static_cast<std::uint64_t>(written);
  }
  return true;
}

std::expected<void, std::string> PartialFile::commit() {
  if (!error_.empty()) return std::unexpected(error_);
  if (fd_ < 0 || temp_path_.empty()) return std::unexpected(std::string("the file was already committed"));
  if (::close(std::exchange(fd_, -1)) != 0) {
    return std::unexpected("cannot finish writing " + temp_path_.string() + ": " +
                           std::strerror(errno));
  }
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    return std::unexpected("cannot move " + temp_path_.string() + " to " + final_path_.string() +
                           ": " + std::strerror(errno));
  }
  temp_path_.clear();
  return {};
}

}  // namespace gpuenv::repodata
