// info/paths.json (CEP 34): what a package installs, and how.
//
// Packages older than paths.json (conda-build < 3) list their files in
// info/files, prefixed files in info/has_prefix and copy-only files in
// info/no_link; `paths_json_from_legacy_files` turns those into the same
// structure so the linker has one input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::package {

enum class PathType : std::uint8_t { hardlink, softlink, directory };
enum class FileMode : std::uint8_t { text, binary };

std::string_view to_string(PathType type) noexcept;
std::string_view to_string(FileMode mode) noexcept;

// The placeholder conda-build used before it recorded one per file.
inline constexpr std::string_view kLegacyPrefixPlaceholder = "/opt/anaconda1anaconda2anaconda3";

struct PathEntry {
  std::string path;  // relative, '/'-separated
  PathType path_type = PathType::hardlink;
  FileMode file_mode = FileMode::text;
  std::string prefix_placeholder;  // empty: the file holds no prefix
  bool no_link = false;            // copy, never hardlink
  std::string sha256;              // empty when unknown (legacy packages)
  std::optional<std::uint64_t> size_in_bytes;

  bool has_prefix() const noexcept { return !prefix_placeholder.empty(); }
  friend bool operator==(const PathEntry&, const PathEntry&) = default;
};

struct PathsJson {
  int paths_version = 1;
  std::vector<PathEntry> paths;
  // Built from info/files: entries do not say which paths are symbolic
  // links, so the linker has to look at the extracted files.
  bool from_legacy_files = false;
};

// Parses paths.json text. Throws PackageError naming `source` when it is not
// valid JSON, lacks `paths`, or an entry lacks `_path` or names a path that
// is absolute or climbs out with `..`.
PathsJson parse_paths_json(std::string_view text, std::string_view source);

// Builds the same structure from the legacy files' contents (`has_prefix`
// and `no_link` may be empty). Throws PackageError like parse_paths_json.
PathsJson paths_json_from_legacy_files(std::string_view files, std::string_view has_prefix,
                                       std::string_view no_link, std::string_view source);

// paths.json text as conda-build and rattler-build write it (for writing
// packages).
std::string paths_json_text(const PathsJson& paths);

// Whether `path` is a safe relative package path: not empty, not absolute,
// no `..` component, no NUL byte.
bool is_safe_relative_path(std::string_view path) noexcept;

}  // namespace gpuenv::package
