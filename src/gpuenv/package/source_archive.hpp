// Extracting a recipe's source archive (.tar.gz, .tar.bz2, .tar.xz,
// .tar.zst, .zip) with the same checks as a package: a source tarball comes
// from the internet and is as hostile as any download.
#pragma once

#include <cstdint>
#include <filesystem>

#include "gpuenv/package/extract.hpp"

namespace gpuenv::package {

// Extracts `archive` (its format told by its content, not its name) into
// `target_dir`. Refuses, with a PackageError naming the archive and the
// member, absolute paths, `..` components, members written through the
// archive's own symbolic links, symbolic or hard links leaving `target_dir`,
// device files, and content past `max_total_bytes` in all. On failure
// `target_dir` holds a partial tree: the caller removes it.
ExtractSummary extract_source_archive(const std::filesystem::path& archive,
                                      const std::filesystem::path& target_dir, std::uint64_t max_total_bytes);

}  // namespace gpuenv::package
