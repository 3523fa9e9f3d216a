// rattler-build's --package-format value: `conda` or `tar-bz2`, optionally
// with a compression level (`conda:22`, `tar-bz2:1`). .conda is the default,
// at zstd 19; .tar.bz2 (conda's format v1, for tools and channels that read
// nothing else) at bzip2 9, conda-build's level.
#pragma once

#include <expected>
#include <string_view>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/package/archive_format.hpp"

namespace gpuenv::build {

struct PackageFormat {
  package::ArchiveFormat archive = package::ArchiveFormat::conda;
  int compression_level = 19;
};

// Parses FORMAT[:LEVEL]. zstd levels are 1..22 and bzip2 levels 1..9;
// rattler-build's negative zstd levels are refused (Debian 12's libarchive
// does not take them). The error (kind `option`) names the value and the
// accepted forms.
std::expected<PackageFormat, BuildError> parse_package_format(std::string_view text);

}  // namespace gpuenv::build
