// Writing conda package files (.tar.bz2 and .conda, CEP 35) with libarchive.
//
// The build pipeline packages a directory; tests also write archives member
// by member, including members no reader should accept (`../x`, links out
// of the package): the writer checks nothing, the reader checks everything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gpuenv::package {

struct PackageMember {
  enum class Kind { file, symlink, hardlink, directory };
  std::string path;  // as stored in the archive: "info/index.json", "bin/tool"
  Kind kind = Kind::file;
  // A file's content: `source` names a file to copy when set, else `content`.
  std::string content;
  std::filesystem::path source;
  std::string link_target;  // symlink: its content; hardlink: the member linked to
  unsigned mode = 0644;
  std::int64_t mtime = 0;  // seconds since the epoch
};

struct WritePackageOptions {
  // zstd level for .conda (1..22), bzip2 level for .tar.bz2 (1..9); 0 keeps
  // libarchive's default. conda-build uses zstd 19 for releases; tests use
  // fast levels.
  int compression_level = 0;
};

// Writes `members` into `output`, whose name decides the format. For .conda,
// members under info/ go to info-<stem>.tar.zst and the others to
// pkg-<stem>.tar.zst, next to metadata.json, in an uncompressed zip. The
// file appears at `output` only once complete. Throws PackageError.
void write_package_members(const std::filesystem::path& output,
                           const std::vector<PackageMember>& members,
                           const WritePackageOptions& options = {});

// Packages the tree under `source_dir` (which must hold info/index.json and
// info/paths.json): regular files, symbolic links and empty directories,
// in sorted order, with their modes and modification times.
void write_package(const std::filesystem::path& source_dir, const std::filesystem::path& output,
                   const WritePackageOptions& options = {});

}  // namespace gpuenv::package
