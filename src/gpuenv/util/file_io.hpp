// Small, fast file helpers for the start-up path (reading /proc and /sys
// entries, cache files). They use plain POSIX calls: no iostreams, no
// exceptions, because `gpuenv info` has a 5 ms budget and a missing file is
// an ordinary answer here, not an error.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::util {

// The whole content of a regular file or pseudo-file (/proc files report
// size 0, so this reads until end of file), or nullopt when it cannot be
// read. Reads at most `max_bytes`.
std::optional<std::string> read_file(const std::filesystem::path& path,
                                     std::size_t max_bytes = 1 << 20);

// Reads `size` bytes at `offset` of `fd` into `buffer`, retrying short
// reads and EINTR: the count read (less only at the end of the file), or -1
// with errno set.
std::int64_t read_at(int fd, char* buffer, std::size_t size, std::uint64_t offset);

// Why read_text_file_at_most refused a file; `message` names the file.
struct FileReadError {
  enum class Kind { missing, unreadable, too_large };
  Kind kind = Kind::unreadable;
  std::string message;
};

// The content of a file that the user names and gpuenv parses whole
// (settings, environment files): refused when it holds more than
// `max_bytes`, before reading it when its size is known, so that a huge
// file, a FIFO or /dev/zero costs nothing.
std::expected<std::string, FileReadError> read_text_file_at_most(const std::filesystem::path& path,
                                                                 std::uintmax_t max_bytes);

// The content of a file gpuenv wrote or extracted itself (package cache and
// prefix metadata, read hundreds of times per install): refused when it is
// not a regular file (a FIFO planted there would block the read) or holds
// more than `max_bytes`. Its size is known first, so most files take one read.
std::expected<std::string, FileReadError> read_regular_file_at_most(const std::filesystem::path& path,
                                                                    std::uintmax_t max_bytes);

// "2 MiB", "64 KiB", "1000 bytes": a size limit as messages give it.
std::string describe_byte_count(std::uintmax_t bytes);

// `text` without leading and trailing whitespace.
std::string_view trim(std::string_view text);

// What identifies one version of a file on disk: a package manager that
// replaces a library changes at least one of these.
struct FileIdentity {
  std::string real_path;  // symbolic links resolved
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;

  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

// The identity of the file `path` points to, or nullopt when it does not exist.
std::optional<FileIdentity> file_identity(const std::filesystem::path& path);

// Names of the entries of a directory, sorted; empty when it cannot be read.
std::vector<std::string> list_directory(const std::filesystem::path& directory);

// Whether `path` names an existing directory.
bool is_directory(const std::filesystem::path& path);

// Writes `content` to `path` so that readers see either the old or the new
// file, never a partial one (write to a temporary file beside it, then
// rename). Creates missing parent directories. Returns an error message on
// failure, nullopt on success.
std::optional<std::string> write_file_atomically(const std::filesystem::path& path,
                                                 std::string_view content);

}  // namespace gpuenv::util
