// Reading and writing whole small files (metadata, records) with as few
// system calls as possible: installing 100 packages reads and writes a few
// hundred of them, and the warm-cache install has a budget of 0.45 s.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gpuenv::package {

// The content of a regular file; nullopt when it does not exist. Throws
// PackageError for any other failure (permissions, I/O errors, a directory).
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

// Creates `path` with `content` (mode 0644 before umask), replacing an
// existing file atomically (write to a temporary name, then rename).
// Throws PackageError when it cannot.
void write_whole_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace gpuenv::package
