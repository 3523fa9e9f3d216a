#include "gpuenv/specs/package_filename.hpp"

#include <cstdio>

namespace gpuenv::specs {
namespace {

constexpr std::string_view conda_extension = ".conda";
constexpr std::string_view tar_bz2_extension = ".tar.bz2";

}  // namespace

bool is_package_file_name(std::string_view text) noexcept {
  return text.ends_with(conda_extension) || text.ends_with(tar_bz2_extension);
}

std::string_view strip_package_extension(std::string_view filename) noexcept {
  if (filename.ends_with(conda_extension)) return filename.substr(0, filename.size() - conda_extension.size());
  if (filename.ends_with(tar_bz2_extension)) return filename.substr(0, filename.size() - tar_bz2_extension.size());
  return filename;
}

std::string_view package_filename_problem(std::string_view filename) noexcept {
  // One pass over the bytes: this runs for every record of a channel.
  for (const char c : filename) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '/') return "the file name has a '/'";
    if (c == '\\') return "the file name has a '\\'";
    if (byte < 0x20 || byte == 0x7f) return "the file name has a control character";
  }
  if (!is_package_file_name(filename)) return "the file name does not end in .conda or .tar.bz2";
  const auto stem = strip_package_extension(filename);
  if (stem.empty() || stem == "." || stem == "..") {
    return "the file name is only '.', '..' or nothing before its extension";
  }
  return {};
}

bool filename_matches_record(std::string_view filename, std::string_view name, std::string_view version,
                             std::string_view build) noexcept {
  if (!is_package_file_name(filename)) return false;
  const auto stem = strip_package_extension(filename);
  // Compared in place: no string is built on the hot path.
  if (stem.size() != name.size() + version.size() + build.size() + 2) return false;
  return stem.starts_with(name) && stem[name.size()] == '-' &&
         stem.substr(name.size() + 1, version.size()) == version && stem[name.size() + 1 + version.size()] == '-' &&
         stem.ends_with(build);
}

std::string printable(std::string_view text) {
  std::string result;
  result.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      result += c;
      continue;
    }
    char escaped[5];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
    result += escaped;
  }
  return result;
}

}  // namespace gpuenv::specs
