// A file written under a temporary name beside its final name and renamed
// over it only once complete: readers (and later runs) see either the old
// file or the whole new one, never a half-written one.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

namespace gpuenv::repodata {

class PartialFile {
 public:
  // Creates "<final_path>.part-<pid>-<random>" (unique, so concurrent gpuenv
  // runs writing the same cache entry never share a temporary file).
  static std::expected<PartialFile, std::string> create_beside(std::filesystem::path final_path);

  PartialFile(PartialFile&& other) noexcept;
  PartialFile& operator=(PartialFile&& other) noexcept;
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;
  // Removes the temporary file unless it was committed.
  ~PartialFile();

  // Appends bytes; false when the disk refused them (error() says why).
  bool write(std::string_view bytes);
  std::uint64_t bytes_written() const { return bytes_written_; }
  const std::string& error() const { return error_; }
  const std::filesystem::path& temp_path() const { return temp_path_; }
  const std::filesystem::path& final_path() const { return final_path_; }

  // Closes the file and atomically renames it to its final name.
  std::expected<void, std::string> commit();

  // Changes the name commit() gives the file, for a file whose name is known
  // only once it is written (an index built while its input downloads). The
  // new name must be in the same directory: rename() is atomic only there.
  void retarget(std::filesystem::path final_path) { final_path_ = std::move(final_path); }

 private:
  PartialFile(std::filesystem::path final_path, std::filesystem::path temp_path, int fd);
  void discard() noexcept;

  std::filesystem::path final_path_;
  std::filesystem::path temp_path_;
  int fd_ = -1;
  std::uint64_t bytes_written_ = 0;
  std::string error_;
};

}  // namespace gpuenv::repodata
