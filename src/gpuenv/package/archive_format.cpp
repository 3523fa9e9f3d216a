#include "gpuenv/package/archive_format.hpp"

namespace gpuenv::package {

std::optional<ArchiveFormat> archive_format_of(std::string_view filename) noexcept {
  if (filename.ends_with(".conda")) return ArchiveFormat::conda;
  if (filename.ends_with(".tar.bz2")) return ArchiveFormat::tar_bz2;
  return std::nullopt;
}

std::string_view extension_of(ArchiveFormat format) noexcept {
  return format == ArchiveFormat::conda ? ".conda" : ".tar.bz2";
}

}  // namespace gpuenv::package
