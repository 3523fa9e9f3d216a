// A recipe's sources, into the work directory's SRC_DIR, as rattler-build
// lays them out:
//   url   downloaded (http(s) through the net module, file:// copied),
//         verified against its sha256 or md5 (a mismatch names both
//         digests), kept in <cache>/build-sources/<digest>/ so a second
//         build fetches nothing (a file of the same digest in one of the
//         `archive_dirs` is taken instead of downloading); an archive is extracted (its single
//         top-level directory stripped), anything else copied; with
//         file_name the file is copied under that name, never extracted.
//   path  relative to the recipe: a directory is copied, a local archive
//         extracted like a url's, another file copied.
//   git   cloned into a cache mirror, the asked revision checked out with
//         its .git (git_source.hpp).
// Then target_directory (inside SRC_DIR) and the patches (`patch -p1`, in
// the order written; one that does not apply fails the build, named).
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::build {

struct SourceSettings {
  std::filesystem::path recipe_dir;  // path sources and patches are relative to it
  std::filesystem::path cache_dir;   // the gpuenv cache directory
  // Left out of copied path sources: the build's output directory, when a
  // recipe's `path: ..` holds it.
  std::filesystem::path excluded_dir;
  net::ClientSettings client;
  // Most bytes one download (or a git mirror) may bring, and one archive (or
  // a git checkout) may unpack to.
  std::uint64_t max_download_bytes = 8ull << 30;
  std::uint64_t max_unpacked_bytes = 32ull << 30;
  std::function<void(std::string_view)> log;  // one line at a time, no newline
  // `gpuenv build --source-archives DIR`: directories of source archives
  // fetched some other way (Debian's .orig tarballs through apt-get source,
  // a mirror on disk). A url source whose digest one of their files has is
  // taken from that file instead of downloaded, whatever its name: the
  // recipe still names the upstream url and digest, and the digest is what
  // makes the file the same.
  std::vector<std::filesystem::path> archive_dirs;
};

std::expected<void, BuildError> fetch_sources(const std::vector<recipe::Source>& sources,
                                              const std::filesystem::path& src_dir,
                                              const SourceSettings& settings);

// Whether `name` ends like an archive fetch_sources extracts.
bool is_source_archive_name(std::string_view name);

}  // namespace gpuenv::build
