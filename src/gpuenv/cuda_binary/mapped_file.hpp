// A regular file mapped read-only: parsers touch only the pages they read,
// so listing a 500 MB library reads its headers, not its payloads.
#pragma once

#include <cstdint>
#include <expected>
#include <string>

#include "gpuenv/cuda_binary/byte_span.hpp"

namespace gpuenv::cuda_binary::detail {

class MappedFile {
 public:
  static std::expected<MappedFile, ReadError> open(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();

  ByteSpan bytes() const { return {static_cast<const unsigned char*>(address_), size_, 0}; }

 private:
  MappedFile(void* address, std::uint64_t size) : address_(address), size_(size) {}
  void* address_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace gpuenv::cuda_binary::detail
