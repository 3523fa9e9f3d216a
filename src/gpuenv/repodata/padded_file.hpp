// A file mapped read-only into memory with readable bytes past its end, the
// way simdjson wants its input (SIMDJSON_PADDING). Mapping instead of
// reading avoids copying hundreds of megabytes of repodata and lets the
// kernel drop the pages again once they were parsed.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

namespace gpuenv::repodata {

class PaddedFile {
 public:
  // Maps `path` with at least `padding` readable bytes after its content.
  // The error names the file and the system's reason.
  static std::expected<PaddedFile, std::string> open(const std::filesystem::path& path,
                                                     std::size_t padding);

  PaddedFile(PaddedFile&& other) noexcept;
  PaddedFile& operator=(PaddedFile&& other) noexcept;
  PaddedFile(const PaddedFile&) = delete;
  PaddedFile& operator=(const PaddedFile&) = delete;
  ~PaddedFile();

  std::string_view text() const noexcept { return {data_, size_}; }
  // Readable bytes from text().data(): size plus at least the padding.
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  PaddedFile() = default;

  const char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  void* mapping_ = nullptr;  // what munmap releases (null for an empty file)
  std::size_t mapping_size_ = 0;
};

}  // namespace gpuenv::repodata
