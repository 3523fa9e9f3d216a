// The on-disk cache of sharded repodata (CEP 16), under <repodata cache>/shards:
//   <sha256>.msgpack.zst           a shard, kept forever: its name is its content's
//                                  hash, so it never needs revalidating
//   <key>.index.msgpack.zst        a subdir's shard index, as downloaded...
//   <key>.index.state.json         ...and its validators (ETag, Last-Modified),
//                                  revalidated like repodata.json
//   <key>.no-shards                the subdir answered 404 for its index: use
//                                  repodata.json without asking again for a day
//   <key>.closure.json             the records of the last request's closure, as
//                                  repodata.json, for the loader...
//   <key>.closure.key              ...and what it was made from (index versions,
//                                  the request's names): equal keys skip the shards
// <key> is the repodata cache's key of the subdir URL. Files only appear by
// atomic rename of complete, checked content.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "gpuenv/repodata/repodata_state.hpp"
#include "gpuenv/repodata/shard_format.hpp"

namespace gpuenv::repodata {

struct CachedShardIndex {
  std::string bytes;  // compressed, as downloaded
  std::optional<RepodataState> state;
  std::string version;  // changes whenever a new index is stored (size and mtime)
};

class ShardCache {
 public:
  explicit ShardCache(std::filesystem::path dir) : dir_(std::move(dir)) {}
  const std::filesystem::path& dir() const { return dir_; }

  std::expected<void, std::string> prepare() const;

  std::optional<std::string> read_shard(const ShardHash& hash, std::size_t max_bytes) const;
  std::expected<void, std::string> store_shard(const ShardHash& hash, std::string_view bytes) const;

  bool has_index(const std::string& subdir_url) const;
  std::optional<CachedShardIndex> load_index(const std::string& subdir_url, std::size_t max_bytes) const;
  std::expected<std::string, std::string> store_index(const std::string& subdir_url, std::string_view bytes,
                                                      RepodataState state) const;
  std::expected<void, std::string> write_index_state(const std::string& subdir_url, const RepodataState& state) const;

  bool known_without_shards(const std::string& subdir_url) const;
  void remember_without_shards(const std::string& subdir_url) const;

  std::filesystem::path closure_json_path(const std::string& subdir_url) const;
  std::optional<std::string> closure_key(const std::string& subdir_url) const;
  // Writes the JSON only when it differs from what is there (its mtime is
  // what the loader's index of it is keyed on), then the key.
  std::expected<void, std::string> store_closure(const std::string& subdir_url, std::string_view json,
                                                 std::string_view key) const;

 private:
  std::filesystem::path file(const std::string& subdir_url, std::string_view suffix) const;
  std::filesystem::path dir_;
};

}  // namespace gpuenv::repodata
