#include "gpuenv/cuda_binary/mapped_file.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpuenv::cuda_binary::detail {

std::expected<MappedFile, ReadError> MappedFile::open(const std::string& path) {
  auto error = [&](std::string why) {
    return std::unexpected(ReadError{ReadErrorKind::unreadable, path, fmt::format("{}: {}", path, why)});
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return error(fmt::format("cannot open it ({})", std::strerror(errno)));
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    return error("not a regular file; name a library, executable, archive, .cubin, .fatbin or .ptx file");
  }
  if (status.st_size == 0) {
    ::close(fd);
    return MappedFile(nullptr, 0);
  }
  void* address = ::mmap(nullptr, static_cast<std::size_t>(status.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);
  if (address == MAP_FAILED) return error(fmt::format("cannot map it ({})", std::strerror(map_errno)));
  return MappedFile(address, static_cast<std::uint64_t>(status.st_size));
}

MappedFile::MappedFile(MappedFile&& other) noexcept : address_(other.address_), size_(other.size_) {
  other.address_ = nullptr;
  other.size_ = 0;
}

MappedFile::~MappedFile() {
  if (address_) ::munmap(address_, static_cast<std::size_t>(size_));
}

}  // namespace gpuenv::cuda_binary::detail
