#include "gpuenv/package/file_content.hpp"

#include "gpuenv/package/package_error.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::package {

namespace {
// Package metadata and records are small (paths.json of the largest packages
// is tens of MB); anything beyond this is not a file gpuenv wrote.
constexpr std::uintmax_t max_metadata_file_bytes = std::uintmax_t{1} << 30;
}  // namespace

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  auto content = util::read_regular_file_at_most(path, max_metadata_file_bytes);
  if (content) return std::move(*content);
  if (content.error().kind == util::FileReadError::Kind::missing) return std::nullopt;
  throw PackageError(content.error().message);
}

void write_whole_file_atomically(const std::filesystem::path& path, std::string_view content) {
  if (auto error = util::write_file_atomically(path, content)) throw PackageError(*error);
}

}  // namespace gpuenv::package
