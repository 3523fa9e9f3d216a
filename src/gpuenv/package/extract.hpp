// Extracting a package file into a directory, safely and streaming.
#pragma once

#include <cstdint>
#include <filesystem>

namespace gpuenv::package {

struct ExtractSummary {
  std::uint64_t files = 0;  // regular files, links and directories written
  std::uint64_t bytes = 0;  // file content written
};

// Extracts every member of `archive` (.conda: the info-*.tar.zst and
// pkg-*.tar.zst members; .tar.bz2: the tarball) into `target_dir`, creating
// it when missing. Members are streamed from the archive to disk; file modes
// and modification times are kept (shipped .pyc files check the latter).
//
// Refuses, with a PackageError naming the archive and the member, members
// with an absolute path or a `..` component, members written through a
// symbolic link of the archive, symbolic links whose target is absolute or
// resolves (through the archive's other links) outside `target_dir`, hard
// links to such places, and device files, FIFOs and sockets. Corrupt and
// truncated archives are refused likewise.
//
// On failure `target_dir` holds a partial tree: extract into a fresh
// temporary directory and rename it into place (the package cache does).
ExtractSummary extract_package(const std::filesystem::path& archive,
                               const std::filesystem::path& target_dir);

}  // namespace gpuenv::package
