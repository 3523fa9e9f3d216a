// CEP 16 shard index and shard reading against conda's real sharded fixture,
// round trips through the writer `gpuenv index` uses, and hostile inputs.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "fetch_fixture.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/repodata/shard_format.hpp"
#include "gpuenv/repodata/shard_writer.hpp"
#include "gpuenv/repodata/zstd_stream.hpp"
#include "support/testdata.hpp"

namespace gpuenv::repodata {
namespace {

using nlohmann::json;
using testing::slurp;

std::filesystem::path fixture() { return gpuenv::testing::testdata_dir() / "channels/conda-format-repo/linux-64"; }

TEST(ShardFormat, ReadsCondasShardIndex) {
  const auto index = parse_shard_index(slurp(fixture() / "repodata_shards.msgpack.zst"), "the fixture");
  ASSERT_TRUE(index) << index.error();
  EXPECT_EQ(index->base_url, "");
  EXPECT_EQ(index->shards_base_url, "");
  ASSERT_EQ(index->shards.size(), 2u);
  // Content-addressed: each hash is the sha256 of the shard file beside it.
  for (const auto& [name, hash] : index->shards) {
    const auto path = fixture() / (hex_of(hash) + ".msgpack.zst");
    ASSERT_TRUE(std::filesystem::exists(path)) << name;
    EXPECT_EQ(package::sha256_hex(slurp(path)), hex_of(hash)) << name;
  }
  EXPECT_TRUE(index->shards.contains("zlib"));
  EXPECT_TRUE(index->shards.contains("libgcc-ng"));
}

TEST(ShardFormat, ShardRecordsAreTheRecordsOfRepodataJson) {
  const auto index = parse_shard_index(slurp(fixture() / "repodata_shards.msgpack.zst"), "the fixture");
  ASSERT_TRUE(index) << index.error();
  const json repodata = json::parse(slurp(fixture() / "repodata.json"));
  std::size_t compared = 0;
  for (const auto& [name, hash] : index->shards) {
    const auto records = parse_shard(slurp(fixture() / (hex_of(hash) + ".msgpack.zst")), name, "shard");
    ASSERT_TRUE(records) << records.error();
    for (const auto& [filename, text] : records->packages) {
      const json expected = repodata["packages"].at(filename);
      json got = json::parse(text);
      // The fixture's shards are older than the record's later fields.
      for (auto it = expected.begin(); it != expected.end(); ++it) {
        if (got.contains(it.key())) {
          EXPECT_EQ(got[it.key()], it.value()) << filename << " " << it.key();
        }
      }
      EXPECT_EQ(got["sha256"].get<std::string>().size(), 64u);
      ++compared;
    }
    if (name == "zlib") {
      EXPECT_EQ(records->depends, std::vector<std::string>{"libgcc-ng >=7.3.0"});
    }
  }
  EXPECT_EQ(compared, 2u);
}

std::map<std::string, json> sample_records() {
  std::map<std::string, json> records;
  const auto add = [&](const std::string& name, const std::string& version, const std::string& ext,
                       std::vector<std::string> depends) {
    const std::string filename = name + "-" + version + "-h0_0" + ext;
    records[filename] = {{"name", name},           {"version", version},
                         {"build", "h0_0"},        {"build_number", 0},
                         {"depends", depends},     {"subdir", "linux-64"},
                         {"size", 1234},           {"timestamp", 1700000000000},
                         {"md5", std::string(32, 'a')},
                         {"sha256", std::string(62, 'b') + "0f"}};
  };
  add("app", "1.0", ".conda", {"lib >=1", "python"});
  add("app", "0.9", ".tar.bz2", {"lib"});
  add("lib", "1.2", ".conda", {});
  add("other", "3", ".conda", {"unrelated"});
  return records;
}

TEST(ShardWriter, WhatItWritesReadsBackAndIsDeterministic) {
  testing::ScratchDir dir;
  const auto records = sample_records();
  const auto written = write_subdir_shards(dir.path(), "linux-64", records, 3);
  ASSERT_TRUE(written) << written.error();
  EXPECT_EQ(written->names, 3u);
  EXPECT_EQ(written->shards_written, 3u);
  EXPECT_TRUE(written->index_changed);
  const std::string index_bytes = slurp(dir.path() / "repodata_shards.msgpack.zst");
  const auto index = parse_shard_index(index_bytes, "index");
  ASSERT_TRUE(index) << index.error();
  EXPECT_EQ(index->shards_base_url, "./shards/");
  std::size_t found = 0;
  for (const auto& [name, hash] : index->shards) {
    const std::string bytes = slurp(dir.path() / "shards" / (hex_of(hash) + ".msgpack.zst"));
    EXPECT_EQ(package::sha256_hex(bytes), hex_of(hash));
    const auto shard = parse_shard(bytes, name, "shard");
    ASSERT_TRUE(shard) << shard.error();
    for (const auto* section : {&shard->packages, &shard->packages_conda}) {
      for (const auto& [filename, text] : *section) {
        EXPECT_EQ(json::parse(text), records.at(filename)) << filename;
        EXPECT_EQ(section == &shard->packages_conda, filename.ends_with(".conda"));
        ++found;
      }
    }
  }
  EXPECT_EQ(found, records.size());

  const auto again = write_subdir_shards(dir.path(), "linux-64", records, 3);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->shards_written, 0u);
  EXPECT_FALSE(again->index_changed);
  EXPECT_EQ(slurp(dir.path() / "repodata_shards.msgpack.zst"), index_bytes);
}

// Hostile inputs: each is refused with a message naming the input.
std::string compressed_msgpack(const json& document) {
  std::string bytes;
  json::to_msgpack(document, bytes);
  return zstd_compress(bytes, 3);
}

std::string index_error(const std::string& compressed, const ShardLimits& limits = {}) {
  const auto index = parse_shard_index(compressed, "INDEX-LABEL", limits);
  if (index) return "accepted";
  EXPECT_NE(index.error().find("INDEX-LABEL"), std::string::npos) << index.error();
  return index.error();
}

std::string shard_error(const std::string& compressed, const ShardLimits& limits = {}) {
  const auto shard = parse_shard(compressed, "app", "SHARD-LABEL", limits);
  if (shard) return "accepted";
  EXPECT_NE(shard.error().find("SHARD-LABEL"), std::string::npos) << shard.error();
  return shard.error();
}

json valid_index() {
  return {{"version", 1},
          {"info", {{"base_url", ""}, {"shards_base_url", ""}}},
          {"shards", {{"app", json::binary(std::vector<std::uint8_t>(32, 7))}}}};
}

TEST(ShardFormatHostile, IndexesThatAreRefused) {
  EXPECT_EQ(index_error(compressed_msgpack(valid_index())), "accepted");
  EXPECT_NE(index_error("not zstd at all").find("not valid zstd"), std::string::npos);
  const std::string full = compressed_msgpack(valid_index());
  EXPECT_NE(index_error(full.substr(0, full.size() - 4)), "accepted");
  ShardLimits small;
  small.max_index_bytes = 16;
  EXPECT_NE(index_error(full, small).find("decompresses to more than"), std::string::npos);
  small = {};
  small.max_compressed_bytes = 8;
  EXPECT_NE(index_error(full, small).find("compressed"), std::string::npos);

  auto bad = valid_index();
  bad["shards"] = json::array();
  EXPECT_NE(index_error(compressed_msgpack(bad)).find("not a map"), std::string::npos);
  for (const char* name : {"../../etc/passwd", "a/b", "a\\b", "..", "", "new\nline"}) {
    bad = valid_index();
    bad["shards"] = {{name, json::binary(std::vector<std::uint8_t>(32, 7))}};
    EXPECT_NE(index_error(compressed_msgpack(bad)).find("not a name a package can have"), std::string::npos)
        << name;
  }
  bad = valid_index();
  bad["shards"]["app"] = json::binary(std::vector<std::uint8_t>(31, 7));
  EXPECT_NE(index_error(compressed_msgpack(bad)).find("not a 32-byte sha256"), std::string::npos);
  bad = valid_index();
  bad["shards"]["app"] = 42;
  EXPECT_NE(index_error(compressed_msgpack(bad)).find("shard hash of 'app'"), std::string::npos);
  bad = valid_index();
  bad["version"] = 2;
  EXPECT_NE(index_error(compressed_msgpack(bad)).find("version"), std::string::npos);
  bad = valid_index();
  bad["info"]["shards_base_url"] = 5;
  EXPECT_NE(index_error(compressed_msgpack(bad)).find("shards_base_url"), std::string::npos);
  EXPECT_NE(index_error(compressed_msgpack(json::array({1, 2}))).find("not a map"), std::string::npos);
}

TEST(ShardFormatHostile, MsgpackThatWouldCostMemoryOrStackIsRefused) {
  // An array header claiming 2^32-1 elements in five bytes.
  const std::string huge_array = zstd_compress(std::string("\xdd\xff\xff\xff\xff", 5), 3);
  EXPECT_NE(index_error(huge_array).find("more elements than it has bytes"), std::string::npos);
  // 100,000 nested arrays.
  std::string nested(100000, '\x91');
  nested += '\xc0';
  const std::string deep = zstd_compress(nested, 3);
  EXPECT_NE(shard_error(deep).find("nests deeper"), std::string::npos);
  // Trailing bytes after the document, an extension type.
  std::string bytes;
  json::to_msgpack(valid_index(), bytes);
  EXPECT_NE(index_error(zstd_compress(bytes + "\xc0", 3)).find("after its msgpack"), std::string::npos);
  EXPECT_NE(shard_error(zstd_compress(std::string("\xd4\x01\x02", 3), 3)).find("extension"), std::string::npos);
  EXPECT_NE(shard_error(zstd_compress(std::string("\xc1", 1), 3)).find("not valid msgpack"), std::string::npos);
}

json valid_shard() {
  return {{"packages.conda",
           {{"app-1.0-h0_0.conda",
             {{"name", "app"}, {"version", "1.0"}, {"build", "h0_0"}, {"depends", {"lib"}},
              {"sha256", json::binary(std::vector<std::uint8_t>(32, 1))}}}}}};
}

TEST(ShardFormatHostile, ShardsThatAreRefused) {
  EXPECT_EQ(shard_error(compressed_msgpack(valid_shard())), "accepted");
  auto bad = valid_shard();
  bad["packages.conda"]["app-1.0-h0_0.conda"]["name"] = "python";
  EXPECT_NE(shard_error(compressed_msgpack(bad)).find("a record of 'python'"), std::string::npos);
  bad = valid_shard();
  bad["packages.conda"]["../../evil-1.0-h0_0.conda"] = bad["packages.conda"]["app-1.0-h0_0.conda"];
  EXPECT_NE(shard_error(compressed_msgpack(bad)).find("path characters"), std::string::npos);
  bad = valid_shard();
  bad["packages.conda"]["app-1.0-h0_0.conda"]["depends"] = "lib";
  EXPECT_NE(shard_error(compressed_msgpack(bad)).find("not an array"), std::string::npos);
  bad = valid_shard();
  bad["packages.conda"]["app-1.0-h0_0.conda"]["depends"] = {1};
  EXPECT_NE(shard_error(compressed_msgpack(bad)).find("not a string"), std::string::npos);
  bad = valid_shard();
  bad["packages"] = "nope";
  EXPECT_NE(shard_error(compressed_msgpack(bad)).find("not a map"), std::string::npos);
  bad = valid_shard();
  bad["packages.conda"]["app-1.0-h0_0.conda"] = 3;
  EXPECT_NE(shard_error(compressed_msgpack(bad)).find("not a map"), std::string::npos);
  ShardLimits few;
  few.max_records = 0;
  EXPECT_NE(shard_error(compressed_msgpack(valid_shard()), few).find("more than the 0 allowed"), std::string::npos);
  // Text that is not UTF-8 cannot become repodata.json.
  std::string bytes;
  json::to_msgpack(valid_shard(), bytes);
  const auto at = bytes.find("\xa3"
                             "1.0");  // the version's value
  ASSERT_NE(at, std::string::npos);
  bytes[at + 1] = '\xff';
  EXPECT_NE(shard_error(zstd_compress(bytes, 3)).find("not UTF-8"), std::string::npos);
}

}  // namespace
}  // namespace gpuenv::repodata

namespace gpuenv::repodata {
namespace {

TEST(ShardNames, FindsEveryNameWhateverOrderTheIndexListsThemIn) {
  const auto hash_of_byte = [](unsigned char byte) {
    ShardHash hash{};
    hash.fill(byte);
    return hash;
  };
  for (const bool sorted : {true, false}) {
    ShardNames names;
    const std::vector<std::string> order =
        sorted ? std::vector<std::string>{"a", "ab", "b", "numpy", "python"}
               : std::vector<std::string>{"python", "a", "numpy", "b", "ab"};
    names.reserve(order.size(), 32);
    for (const auto& name : order) names.add(name, hash_of_byte(static_cast<unsigned char>(name.size())));
    names.finish();
    ASSERT_EQ(names.size(), 5u);
    for (const auto& name : order) {
      const ShardHash* hash = names.find(name);
      ASSERT_NE(hash, nullptr) << name;
      EXPECT_EQ(*hash, hash_of_byte(static_cast<unsigned char>(name.size()))) << name;
    }
    for (const char* absent : {"", "aa", "c", "numpy2", "pythons", "zzz"}) EXPECT_FALSE(names.contains(absent)) << absent;
    std::vector<std::string> listed;
    for (const auto& [name, hash] : names) listed.emplace_back(name);
    EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  }
}

TEST(ShardNames, ANameListedTwiceKeepsItsFirstHash) {
  ShardHash first{};
  first.fill(1);
  ShardHash second{};
  second.fill(2);
  ShardNames names;
  names.add("zlib", first);
  names.add("app", first);
  names.add("zlib", second);
  names.finish();
  EXPECT_EQ(names.size(), 2u);
  ASSERT_TRUE(names.contains("zlib"));
  EXPECT_EQ(*names.find("zlib"), first);
}

}  // namespace
}  // namespace gpuenv::repodata

namespace gpuenv::repodata {
namespace {

TEST(ZstdDeclaredSize, IsTheFrameHeadersSizeOrNothing) {
  const std::string data(10000, 'x');
  EXPECT_EQ(zstd_declared_size(zstd_compress(data, 3)), data.size());
  EXPECT_FALSE(zstd_declared_size("not zstd"));
  EXPECT_FALSE(zstd_declared_size(""));
}

// The decoder sizes its output by the frame header, which the server
// writes: a header whose size disagrees with the data must still be
// refused, not trusted.
TEST(ShardFormatHostile, AFrameThatLiesAboutItsSizeIsRefused) {
  std::string compressed = compressed_msgpack(valid_index());
  // Frame header: magic (4), descriptor (1), then (single segment) the
  // content size; a descriptor with Frame_Content_Size_flag 3 takes 8 bytes,
  // so rewrite a one-byte size field only when that is what zstd wrote.
  const auto descriptor = static_cast<unsigned char>(compressed[4]);
  ASSERT_EQ(descriptor >> 6, 0) << "the test assumes a one-byte content size";
  ASSERT_TRUE(descriptor & 0x20) << "the test assumes a single-segment frame";
  compressed[5] = static_cast<char>(static_cast<unsigned char>(compressed[5]) + 1);
  EXPECT_NE(index_error(compressed), "accepted");
}

}  // namespace
}  // namespace gpuenv::repodata
