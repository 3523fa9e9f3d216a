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

// Package name -> sha256 of its shard, for every name of a subdir (tens of
// thousands): one text and one sorted array, not a node per name, since
// building and freeing a tree of them was a tenth of a cold run.
class ShardNames {
 public:
  // The hash of `name`'s shard; nullptr when the index does not list it.
  const ShardHash* find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  std::size_t size() const { return entries_.size(); }

  // Building: reserve, add every entry, then finish (a name listed twice
  // keeps its first hash, as a map's first insertion would).
  void reserve(std::size_t names, std::size_t text_bytes);
  void add(std::string_view name, const ShardHash& hash);
  void finish();

  class Iterator {
   public:
    Iterator(const ShardNames& names, std::size_t at) : names_(&names), at_(at) {}
    std::pair<std::string_view, ShardHash> operator*() const {
      return {names_->name_at(at_), names_->entries_[at_].hash};
    }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    const ShardNames* names_;
    std::size_t at_;
  };
  Iterator begin() const { return {*this, 0}; }
  Iterator end() const { return {*this, entries_.size()}; }

 private:
  struct Entry {
    std::size_t offset;  // into text_
    std::size_t length;
    ShardHash hash;
  };
  std::string_view name_at(std::size_t at) const { return {text_.data() + entries_[at].offset, entries_[at].length}; }

  std::string text_;
  std::vector<Entry> entries_;  // sorted by name once finished
};

struct ShardIndex {
  // info.base_url and info.shards_base_url as written (relative to the
  // index's URL, or absolute); "" when absent.
  std::string base_url;
  std::string shards_base_url;
  ShardNames shards;
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
