#include "gpuenv/repodata/shard_writer.hpp"

#include <fmt/format.h>

#include <msgpack.hpp>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/repodata/shard_format.hpp"
#include "gpuenv/repodata/zstd_stream.hpp"
#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/hex.hpp"

namespace gpuenv::repodata {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct StringStream {
  std::string& out;
  void write(const char* data, std::size_t size) { out.append(data, size); }
};

std::optional<std::vector<std::uint8_t>> bytes_of_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<std::uint8_t> bytes(hex.size() / 2);
  if (!util::hex_to_binary(hex, bytes.data(), bytes.size())) return std::nullopt;
  return bytes;
}

// The record as a shard holds it: sha256 and md5 as bytes (CEP 16); keys
// sorted (nlohmann's objects are), so equal records encode equally.
std::string encode_record(const json& record) {
  json copy = record;
  for (const char* key : {"sha256", "md5"}) {
    const auto it = copy.find(key);
    if (it == copy.end() || !it->is_string()) continue;
    if (auto bytes = bytes_of_hex(it->get<std::string>())) *it = json::binary(std::move(*bytes));
  }
  std::string out;
  json::to_msgpack(copy, out);
  return out;
}

void pack_text(msgpack::packer<StringStream>& packer, std::string_view text) {
  packer.pack_str(static_cast<std::uint32_t>(text.size()));
  packer.pack_str_body(text.data(), static_cast<std::uint32_t>(text.size()));
}

// Encoded records of one name, by file name (sorted).
using NameRecords = std::map<std::string, std::string>;

std::string encode_shard_of(const NameRecords& records) {
  NameRecords tar_bz2, conda;
  for (const auto& [filename, encoded] : records) (filename.ends_with(".conda") ? conda : tar_bz2).emplace(filename, encoded);
  std::string out;
  StringStream stream{out};
  msgpack::packer<StringStream> packer(stream);
  packer.pack_map(3);
  for (const auto& [key, section] : {std::pair<std::string_view, const NameRecords*>{"packages", &tar_bz2},
                                     {"packages.conda", &conda}}) {
    pack_text(packer, key);
    packer.pack_map(static_cast<std::uint32_t>(section->size()));
    for (const auto& [filename, encoded] : *section) {
      pack_text(packer, filename);
      out += encoded;
    }
  }
  pack_text(packer, "removed");
  packer.pack_array(0);
  return out;
}

std::string encode_index(const std::string& subdir, const std::map<std::string, ShardHash>& hashes) {
  std::string out;
  StringStream stream{out};
  msgpack::packer<StringStream> packer(stream);
  packer.pack_map(3);
  pack_text(packer, "info");
  packer.pack_map(3);
  pack_text(packer, "base_url");
  pack_text(packer, "./");
  pack_text(packer, "shards_base_url");
  pack_text(packer, "./shards/");
  pack_text(packer, "subdir");
  pack_text(packer, subdir);
  pack_text(packer, "shards");
  packer.pack_map(static_cast<std::uint32_t>(hashes.size()));
  for (const auto& [name, hash] : hashes) {
    pack_text(packer, name);
    packer.pack_bin(static_cast<std::uint32_t>(hash.size()));
    packer.pack_bin_body(reinterpret_cast<const char*>(hash.data()), static_cast<std::uint32_t>(hash.size()));
  }
  pack_text(packer, "version");
  packer.pack(1);
  return out;
}

ShardHash hash_from_hex(const std::string& hex) {
  ShardHash hash{};
  const auto bytes = bytes_of_hex(hex);
  if (bytes && bytes->size() == hash.size()) std::copy(bytes->begin(), bytes->end(), hash.begin());
  return hash;
}

}  // namespace

std::string encode_shard(const std::map<std::string, nlohmann::json>& records_of_one_name) {
  NameRecords encoded;
  for (const auto& [filename, record] : records_of_one_name) encoded.emplace(filename, encode_record(record));
  return encode_shard_of(encoded);
}

namespace {

// Records without a usable name stay in repodata.json only.
void add_record(std::map<std::string, NameRecords>& by_name, const std::string& filename, const json& record) {
  const auto name = record.find("name");
  if (name == record.end() || !name->is_string() || !is_safe_package_name(name->get<std::string>())) return;
  by_name[name->get<std::string>()].insert_or_assign(filename, encode_record(record));
}

std::expected<ShardsWriteSummary, std::string> write_grouped(const fs::path& subdir_dir, const std::string& subdir,
                                                             const std::map<std::string, NameRecords>& by_name,
                                                             int zstd_level) {
  ShardsWriteSummary summary;
  summary.names = by_name.size();
  std::map<std::string, ShardHash> hashes;
  const fs::path shards_dir = subdir_dir / "shards";
  for (const auto& [name, name_records] : by_name) {
    const std::string compressed = zstd_compress(encode_shard_of(name_records), zstd_level);
    const std::string hex = package::sha256_hex(compressed);
    hashes.emplace(name, hash_from_hex(hex));
    const fs::path path = shards_dir / (hex + ".msgpack.zst");
    std::error_code error;
    if (fs::exists(path, error)) continue;  // content-addressed: same name, same bytes
    if (auto problem = util::write_file_atomically(path, compressed)) return std::unexpected(*problem);
    ++summary.shards_written;
  }
  const std::string index = zstd_compress(encode_index(subdir, hashes), zstd_level);
  const fs::path index_path = subdir_dir / "repodata_shards.msgpack.zst";
  const auto existing = util::read_regular_file_at_most(index_path, index.size());
  summary.index_changed = !existing || *existing != index;
  if (summary.index_changed) {
    if (auto problem = util::write_file_atomically(index_path, index)) return std::unexpected(*problem);
  }
  return summary;
}

}  // namespace

std::expected<ShardsWriteSummary, std::string> write_subdir_shards(const fs::path& subdir_dir,
                                                                   const std::string& subdir,
                                                                   const std::map<std::string, json>& records,
                                                                   int zstd_level) {
  std::map<std::string, NameRecords> by_name;
  for (const auto& [filename, record] : records) add_record(by_name, filename, record);
  return write_grouped(subdir_dir, subdir, by_name, zstd_level);
}

std::expected<ShardsWriteSummary, std::string> write_shards_for_repodata(const fs::path& repodata_json,
                                                                         const fs::path& subdir_dir,
                                                                         int zstd_level) {
  simdjson::padded_string text;
  if (simdjson::padded_string::load(repodata_json.string()).get(text) != simdjson::SUCCESS) {
    return std::unexpected(fmt::format("cannot read {}", repodata_json.string()));
  }
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document document;
  std::map<std::string, NameRecords> by_name;
  std::string subdir = subdir_dir.filename().string();
  try {
    document = parser.iterate(text);
    simdjson::ondemand::object root = document.get_object();
    for (auto field : root) {
      const std::string_view key = field.unescaped_key();
      if (key == "info") {
        if (auto value = field.value().find_field_unordered("subdir").get_string(); !value.error()) {
          subdir = std::string(value.value_unsafe());
        }
        continue;
      }
      if (key != "packages" && key != "packages.conda") continue;
      for (auto entry : field.value().get_object()) {
        const std::string filename(entry.unescaped_key().value());
        simdjson::ondemand::object record = entry.value().get_object();
        const std::string_view raw = record.raw_json();
        add_record(by_name, filename, json::parse(raw));
      }
    }
  } catch (const std::exception& error) {
    return std::unexpected(fmt::format("{} is not valid repodata: {}", repodata_json.string(), error.what()));
  }
  return write_grouped(subdir_dir, subdir, by_name, zstd_level);
}

}  // namespace gpuenv::repodata
