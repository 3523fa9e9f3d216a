// Writing CEP 16 sharded repodata beside a subdir's repodata.json, as
// `gpuenv index` publishes it:
//   <subdir>/repodata_shards.msgpack.zst        name -> sha256 of its shard
//   <subdir>/shards/<sha256>.msgpack.zst        the records of one name
// Deterministic: the same records give the same bytes (sorted keys, no
// timestamp), so an unchanged name keeps its shard and its URL, and CDN
// and client caches stay valid. Old shards are left in place (clients with
// an older index may still ask for them, CEP 16 "Garbage collection").
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace gpuenv::repodata {

struct ShardsWriteSummary {
  std::size_t names = 0;           // shards in the index
  std::size_t shards_written = 0;  // new shard files (the others existed already)
  bool index_changed = false;      // repodata_shards.msgpack.zst was (re)written
};

// `records`: file name -> repodata record (as in repodata.json's packages
// and packages.conda). Fails with a message naming the file that could not
// be written.
std::expected<ShardsWriteSummary, std::string> write_subdir_shards(
    const std::filesystem::path& subdir_dir, const std::string& subdir,
    const std::map<std::string, nlohmann::json>& records, int zstd_level);

// Shards for every record of an existing repodata.json (benchmarks, and
// tests that shard a generated channel); its info.subdir names the subdir.
std::expected<ShardsWriteSummary, std::string> write_shards_for_repodata(const std::filesystem::path& repodata_json,
                                                                         const std::filesystem::path& subdir_dir,
                                                                         int zstd_level);

// The msgpack (before compression) of one name's shard, sha256 and md5 as
// bytes as CEP 16 stores them. Exposed for tests that build hostile
// variants of a valid shard.
std::string encode_shard(const std::map<std::string, nlohmann::json>& records_of_one_name);

}  // namespace gpuenv::repodata
