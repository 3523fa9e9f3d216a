#include "gpuenv/repodata/padded_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace gpuenv::repodata {
namespace {

// An empty file still needs readable padding; a static zero block serves.
alignas(64) const char empty_padding[4096] = {};

std::string system_error(const std::filesystem::path& path, const char* what, int error) {
  return "cannot " + std::string(what) + " " + path.string() + ": " + std::strerror(error);
}

}  // namespace

std::expected<PaddedFile, std::string> PaddedFile::open(const std::filesystem::path& path,
                                                        std::size_t padding) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::unexpected(system_error(path, "open", errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return std::unexpected(system_error(path, "stat", error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return std::unexpected("cannot read " + path.string() + ": not a regular file");
  }
  PaddedFile file;
  file.size_ = static_cast<std::size_t>(info.st_size);
  if (file.size_ == 0 && padding <= sizeof(empty_padding)) {
    ::close(fd);
    file.data_ = empty_padding;
    file.capacity_ = sizeof(empty_padding);
    return file;
  }

  // Reserve room for the file plus padding as zero pages, then map the file
  // over its start: bytes past the end of the file read as zero either from
  // the file's last page or from the anonymous pages behind it.
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t total = (file.size_ + padding + page - 1) / page * page;
  void* reserved = ::mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reserved == MAP_FAILED) {
    const int error = errno;
    ::close(fd);
    return std::unexpected(system_error(path, "map memory for", error));
  }
  void* mapped = ::mmap(reserved, file.size_, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  const int error = errno;
  ::close(fd);
  if (mapped == MAP_FAILED) {
    ::munmap(reserved, total);
    return std::unexpected(system_error(path, "map", error));
  }
  // The parser reads the file front to back once.
  ::madvise(mapped, file.size_, MADV_SEQUENTIAL);
  file.mapping_ = reserved;
  file.mapping_size_ = total;
  file.data_ = static_cast<const char*>(mapped);
  file.capacity_ = total;
  return file;
}

PaddedFile::PaddedFile(PaddedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      mapping_(std::exchange(other.mapping_, nullptr)),
      mapping_size_(std::exchange(other.mapping_size_, 0)) {}

PaddedFile& PaddedFile::operator=(PaddedFile&& other) noexcept {
  if (this != &other) {
    if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_size_ = std::exchange(other.mapping_size_, 0);
  }
  return *this;
}

PaddedFile::~PaddedFile() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
}

}  // namespace gpuenv::repodata
