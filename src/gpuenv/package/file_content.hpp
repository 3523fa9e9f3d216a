// Reading and writing whole small files (metadata, records) as the package
// and prefix modules want it: a missing file is nullopt, any other failure a
// PackageError. The reading and writing itself is util/file_io's (one
// implementation, few system calls: installing 100 packages reads and writes
// a few hundred of these files, and the warm-cache install has a budget).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gpuenv::package {

// The content of a regular file; nullopt when it does not exist. Throws
// PackageError for any other failure (permissions, I/O errors, a directory,
// a FIFO, more than 1 GiB).
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

// Creates `path` with `content` (mode 0644), replacing an existing file
// atomically (write to a temporary name, then rename); creates missing parent
// directories. Throws PackageError when it cannot.
void write_whole_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace gpuenv::package
