// Bounds-checked little-endian reads over a mapped file, and the error the
// parsers return before the reader adds the file's name. Internal to
// cuda_binary: every offset comes from the file, so every read is checked.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "gpuenv/cuda_binary/device_code.hpp"

namespace gpuenv::cuda_binary::detail {

// A range of the file: `data` points at file offset `file_offset`.
struct ByteSpan {
  const unsigned char* data = nullptr;
  std::uint64_t size = 0;
  std::uint64_t file_offset = 0;

  bool contains(std::uint64_t offset, std::uint64_t length) const {
    return offset <= size && length <= size - offset;
  }
  ByteSpan sub(std::uint64_t offset, std::uint64_t length) const {
    return {data + offset, length, file_offset + offset};
  }
  std::string_view text(std::uint64_t offset, std::uint64_t length) const {
    return {reinterpret_cast<const char*>(data + offset), static_cast<std::size_t>(length)};
  }
  // Callers check `contains(offset, sizeof(T))` first.
  template <typename T>
  T read(std::uint64_t offset) const {
    T value;
    std::memcpy(&value, data + offset, sizeof value);
    return value;  // the formats are little-endian, as is every host gpuenv runs on
  }
};

struct ParseProblem {
  ReadErrorKind kind = ReadErrorKind::malformed;
  std::string message;  // where in the file and what is wrong; the reader adds the path
};

// Limits a hostile file cannot push past.
struct ParseLimits {
  std::size_t max_entries = 1 << 20;
  std::size_t max_archive_members = 1 << 20;
  bool registered_only = false;  // only what DeviceCode::registered marks
};

}  // namespace gpuenv::cuda_binary::detail
