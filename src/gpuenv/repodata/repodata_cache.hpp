// The on-disk repodata cache: one decompressed repodata.json per subdir URL
// plus its state file, named like conda's and mamba's caches:
//   <cache_dir>/<first 8 hex digits of md5(subdir URL)>.json
//   <cache_dir>/<same>.state.json
// Entries only ever change by atomic rename of a fully checked file.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "gpuenv/repodata/partial_file.hpp"
#include "gpuenv/repodata/repodata_state.hpp"

namespace gpuenv::repodata {

struct CacheEntry {
  std::filesystem::path json_path;
  // nullopt when the state file is missing, unreadable or describes another
  // version of the JSON (size or mtime differ): the JSON is then still a
  // complete, checked document (nothing else is ever renamed into place),
  // but gpuenv no longer knows its validators or age.
  std::optional<RepodataState> state;
};

class RepodataCache {
 public:
  explicit RepodataCache(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }

  // "<8 hex>" from md5 of the subdir URL with its trailing '/', the same key
  // conda's cache_fn_url and mamba's cache_name_from_url compute.
  static std::string key_for(const std::string& subdir_url);
  std::filesystem::path json_path(const std::string& subdir_url) const;
  std::filesystem::path state_path(const std::string& subdir_url) const;

  // Creates the cache directory when missing.
  std::expected<void, std::string> prepare() const;

  // The cached entry for a subdir, if its JSON exists.
  std::optional<CacheEntry> load(const std::string& subdir_url) const;

  // A temporary file beside the subdir's JSON, for a download to fill.
  std::expected<PartialFile, std::string> begin_write(const std::string& subdir_url) const;

  // Moves a checked JSON into place and writes its state, with size and
  // mtime_ns taken from the file as renamed.
  std::expected<CacheEntry, std::string> store(const std::string& subdir_url, PartialFile json,
                                               RepodataState state) const;

  // Rewrites the state of an unchanged JSON (after a 304 Not Modified).
  std::expected<void, std::string> write_state(const std::string& subdir_url,
                                               const RepodataState& state) const;

 private:
  std::filesystem::path dir_;
};

// Size and modification time (ns since the epoch) of a file, as stat sees it.
struct FileStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
};
std::optional<FileStamp> stamp_of(const std::filesystem::path& path);

}  // namespace gpuenv::repodata
