// Reading CEP 16 sharded repodata: the shard index
// (<subdir>/repodata_shards.msgpack.zst, package name -> sha256 of its
// shard) and one shard (<shards_base_url><sha256>.msgpack.zst, the records
// of one package name). Both are zstd-compressed msgpack from a server, so
// everything is bounded -- compressed and decompressed sizes, container
// sizes, nesting, name characters -- and every refusal names the input.
//
// A shard is turned into the repodata.json records it stands for (JSON
// text per record, sha256/md5 back in hex), so the records load through
// the one repodata parser every other source goes through.
#pragma once

#include <array>
#include <cstddef>
#include <expected>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuenv::repodata {

struct ShardLimits {
  std::size_t max_compressed_bytes = std::size_t{64} << 20;
  std::size_t max_index_bytes = std::size_t{256} << 20;  // decompressed
  std::size_t max_shard_bytes = std::size_t{256} << 20;  // decompressed
  std::size_t max_names = 4'000'000;    // in one index
  std::size_t max_records = 1'000'000;  // in one shard
  std::size_t max_depth = 32;           // msgpack nesting
};

using ShardHash = std::array<unsigned char, 32>;
std::string hex_of(const ShardHash& hash);

struct ShardIndex {
  // info.base_url and info.shards_base_url as written (relative to the
  // index's URL, or absolute); "" when absent.
  std::string base_url;
  std::string shards_base_url;
  std::map<std::string, ShardHash, std::less<>> shards;  // package name -> sha256 of its shard
};

// `label` names the input in messages ("the shard index of channel X,
// subdir linux-64 (URL)").
std::expected<ShardIndex, std::string> parse_shard_index(std::string_view compressed, std::string_view label,
                                                         const ShardLimits& limits = {});

struct ShardRecords {
  // file name -> the record as a compact JSON object, as repodata.json has it
  std::vector<std::pair<std::string, std::string>> packages;        // .tar.bz2
  std::vector<std::pair<std::string, std::string>> packages_conda;  // .conda
  std::vector<std::string> depends;  // each distinct dependency string of its records
};

// The records of the shard of `package_name`; a record of another name, a
// file name with path characters or a value of the wrong type is an error.
std::expected<ShardRecords, std::string> parse_shard(std::string_view compressed, std::string_view package_name,
                                                     std::string_view label, const ShardLimits& limits = {});

// Whether a package name from an index may be used (and so become part of
// a cache path or URL): non-empty, at most 256 bytes, no '/', '\\', NUL or
// control characters, not "." or "..".
bool is_safe_package_name(std::string_view name);

}  // namespace gpuenv::repodata
