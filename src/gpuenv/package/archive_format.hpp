// The two conda package file formats (CEP 35). Recognising and stripping the
// extensions is specs/package_filename.hpp's job.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuenv::package {

enum class ArchiveFormat {
  tar_bz2,  // format v1: one bzip2-compressed tarball
  conda,    // format v2: an uncompressed zip of info-*.tar.zst, pkg-*.tar.zst, metadata.json
};

// The format a package file name announces ("x-1.0-0.conda", "x-1.0-0.tar.bz2"),
// or nullopt for any other name.
std::optional<ArchiveFormat> archive_format_of(std::string_view filename) noexcept;

std::string_view extension_of(ArchiveFormat format) noexcept;

}  // namespace gpuenv::package
