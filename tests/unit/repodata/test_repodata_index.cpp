// The per-name repodata index: built from repodata.json (streamed, or
// parsed whole for shapes the stream declines), it hands back exactly the
// records the JSON parser hands out, grouped by name, and refuses files
// that are not its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gpuenv/repodata/repodata_index.hpp"
#include "gpuenv/repodata/repodata_parser.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::repodata {
namespace {

using testing::TempDirectory;

std::string lower(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) { return std::tolower(c); });
  return result;
}

// A record as the solver stores it: checksums that are not hex of the right
// length are absent, hex case does not matter.
std::string describe(const RawRecord& record) {
  const auto checksum = [](std::string_view hex, std::size_t size) {
    const bool valid = hex.size() == size && std::all_of(hex.begin(), hex.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    return valid ? lower(hex) : std::string();
  };
  std::string text = std::string(record.filename) + "|" + std::string(record.name) + "|" +
                     std::string(record.version) + "|" + std::string(record.build) + "|" +
                     std::to_string(record.build_number) + "|" + std::string(record.subdir) + "|" +
                     checksum(record.md5, 32) + "|" + checksum(record.sha256, 64) + "|" +
                     (record.size ? std::to_string(*record.size) : "-") + "|" + std::to_string(record.timestamp_ms) +
                     "|" + std::string(record.license) + "|" + std::string(record.license_family) + "|" +
                     std::string(specs::to_string(record.noarch)) + "|" +
                     std::string(record.python_site_packages_path) + "|" +
                     (record.archive == ArchiveKind::conda ? "conda" : "tar.bz2");
  for (const auto list : {record.depends, record.constrains, record.track_features, record.features}) {
    text += "|";
    for (const auto item : list) text += std::string(item) + ";";
  }
  return text;
}

struct Collected final : RecordSink {
  std::vector<std::string> records;
  void on_header(const RepodataHeader&) override {}
  void on_record(const RawRecord& record) override { records.push_back(describe(record)); }
};

// Every record of the index in document order, and per name.
struct Decoded {
  std::vector<std::string> in_order;
  std::map<std::string, std::vector<std::string>> by_name;
};

Decoded decode_all(const RepodataIndex& index) {
  Decoded result;
  std::vector<std::pair<std::uint64_t, std::string>> all;
  RepodataIndex::Decoder decoder;
  RawRecord record;
  for (std::size_t i = 0; i < index.name_count(); ++i) {
    const std::string name(index.name(i));
    EXPECT_EQ(index.records_named(name).data(), index.records_of(i).data()) << name;
    for (const auto offset : index.records_of(i)) {
      EXPECT_TRUE(decoder.decode(index, offset, record)) << name << " at " << offset;
      EXPECT_EQ(record.name, name);
      all.emplace_back(offset, describe(record));
      result.by_name[name].push_back(all.back().second);
    }
  }
  std::sort(all.begin(), all.end());
  for (auto& [offset, text] : all) result.in_order.push_back(std::move(text));
  return result;
}

class RepodataIndexTest : public ::testing::Test {
 protected:
  std::expected<ParseSummary, IndexBuildError> build(const std::filesystem::path& json, std::size_t chunk = 4096) {
    IndexBuildOptions options;
    options.stamp = "stamp-1";
    options.source_label = json.string();
    options.chunk_bytes = chunk;
    return build_repodata_index(json, index_file, options);
  }
  // The index holds what the JSON parser hands out, in document order.
  void expect_same_records(const std::filesystem::path& json) {
    Collected parsed;
    const auto summary = parse_repodata_file(json, parsed);
    ASSERT_TRUE(summary) << summary.error().message;
    const auto built = build(json);
    ASSERT_TRUE(built) << built.error().error.message;
    EXPECT_EQ(built->records, summary->records) << json;
    auto index = RepodataIndex::open(index_file, "stamp-1");
    ASSERT_TRUE(index) << index.error();
    EXPECT_EQ(index->record_count(), summary->records);
    EXPECT_EQ(index->header().subdir, summary->header.subdir);
    EXPECT_EQ(index->header().base_url, summary->header.base_url);
    EXPECT_EQ(decode_all(*index).in_order, parsed.records) << json;
  }

  TempDirectory dir;
  std::filesystem::path index_file = dir / "cache/subdir.index";
};

TEST_F(RepodataIndexTest, HoldsWhatTheParserHandsOutForRealChannels) {
  for (const char* relative :
       {"channels/conda-test-recipes/noarch/repodata.json", "channels/conda-format-repo/linux-64/repodata.json",
        "channels/conda-format-repo/noarch/repodata.json", "repodata/conda-tests/r_linux-64.json",
        "repodata/conda-tests/main_noarch.json", "repodata/mamba-tests/conda-forge-repodata-version-2.json",
        // conda's flat test index: the stream declines it, the whole parser reads it.
        "repodata/conda-tests/legacy-index/index4.json"}) {
    SCOPED_TRACE(relative);
    expect_same_records(testing::testdata_dir() / relative);
  }
}

TEST_F(RepodataIndexTest, GroupsRecordsByNameInDocumentOrder) {
  const auto json = dir / "repodata.json";
  testing::write_text_file(
      json,
      R"({"info":{"subdir":"linux-64"},"packages":{
        "b-1.0-0.tar.bz2":{"name":"b","version":"1.0","build":"0","depends":["a >=1"]},
        "a-1.0-0.tar.bz2":{"name":"a","version":"1.0","build":"0","md5":"00112233445566778899AABBCCDDEEFF"},
        "a-2.0-0.tar.bz2":{"name":"a","version":"2.0","build":"0","sha256":"not hex"},
        "c-3-x.tar.bz2":{"name":"c","version":"3","build":"x","subdir":"noarch","noarch":"python"},
        "odd-name.tar.bz2":{"name":"d","version":"3","build":"x"}},
       "packages.conda":{
        "a-2.0-0.conda":{"name":"a","version":"2.0","build":"0","size":12,"timestamp":1700000000}}})");
  const auto built = build(json, 256);
  ASSERT_TRUE(built) << built.error().error.message;
  EXPECT_EQ(built->superseded_tar_bz2, 1u);  // a-2.0-0.tar.bz2: its .conda is there
  EXPECT_EQ(built->records, 4u);
  EXPECT_EQ(built->skipped, 1u);  // odd-name.tar.bz2: not its record's own file name
  auto index = RepodataIndex::open(index_file, "stamp-1");
  ASSERT_TRUE(index) << index.error();
  EXPECT_EQ(index->record_count(), 4u);
  ASSERT_EQ(index->name_count(), 3u);
  EXPECT_EQ(index->name(0), "a");
  EXPECT_EQ(index->name(1), "b");
  EXPECT_EQ(index->name(2), "c");
  EXPECT_TRUE(index->records_named("d").empty());
  EXPECT_TRUE(index->records_named("").empty());
  const auto decoded = decode_all(*index);
  ASSERT_EQ(decoded.by_name.at("a").size(), 2u);
  EXPECT_EQ(decoded.by_name.at("a")[0],
            "a-1.0-0.tar.bz2|a|1.0|0|0||00112233445566778899aabbccddeeff||-|0|||||tar.bz2||||");
  EXPECT_EQ(decoded.by_name.at("a")[1], "a-2.0-0.conda|a|2.0|0|0||||12|1700000000000|||||conda||||");
  EXPECT_EQ(decoded.by_name.at("c")[0], "c-3-x.tar.bz2|c|3|x|0|noarch|||-|0|||python||tar.bz2||||");
}

TEST_F(RepodataIndexTest, RepeatedDependencyTextsComeBackWhole) {
  // Texts are stored once and referred to after: within a record, across
  // records, and the empty text.
  const auto json = dir / "repodata.json";
  testing::write_text_file(json, R"({"packages":{
        "a-1-0.tar.bz2":{"name":"a","version":"1","build":"0","depends":["", "x >=1", "x >=1", ""],"constrains":["x >=1",""]},
        "b-1-0.tar.bz2":{"name":"b","version":"1","build":"0","depends":["x >=1", "", "y"],"constrains":["y"]}}})");
  Collected parsed;
  ASSERT_TRUE(parse_repodata_file(json, parsed));
  ASSERT_TRUE(build(json));
  auto index = RepodataIndex::open(index_file, "stamp-1");
  ASSERT_TRUE(index) << index.error();
  EXPECT_EQ(decode_all(*index).in_order, parsed.records);
  EXPECT_EQ(parsed.records[0], "a-1-0.tar.bz2|a|1|0|0||||-|0|||||tar.bz2|;x >=1;x >=1;;|x >=1;;||");
}

TEST_F(RepodataIndexTest, RefusesFilesThatAreNotItsOwn) {
  const auto json = testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json";
  ASSERT_TRUE(build(json));
  EXPECT_TRUE(RepodataIndex::open(index_file, "stamp-1"));
  // Built for other data (another size or mtime of the JSON: another stamp).
  EXPECT_FALSE(RepodataIndex::open(index_file, "stamp-2"));
  EXPECT_FALSE(RepodataIndex::open(dir / "missing.index", "stamp-1"));
  // Truncated: the trailer no longer matches the size.
  const auto size = std::filesystem::file_size(index_file);
  std::filesystem::resize_file(index_file, size - 1);
  EXPECT_FALSE(RepodataIndex::open(index_file, "stamp-1"));
  // Not an index at all.
  testing::write_text_file(index_file, std::string(200, 'x'));
  EXPECT_FALSE(RepodataIndex::open(index_file, "stamp-1"));
  testing::write_text_file(index_file, "");
  EXPECT_FALSE(RepodataIndex::open(index_file, "stamp-1"));
}

TEST_F(RepodataIndexTest, ADamagedRecordIsReportedNotMisread) {
  const auto json = testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json";
  ASSERT_TRUE(build(json));
  {
    // Overwrite the first record's bytes (the records section starts the file).
    std::fstream file(index_file, std::ios::in | std::ios::out | std::ios::binary);
    const std::string garbage(64, '\xff');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  auto index = RepodataIndex::open(index_file, "stamp-1");
  ASSERT_TRUE(index) << index.error();
  RepodataIndex::Decoder decoder;
  RawRecord record;
  EXPECT_FALSE(decoder.decode(*index, 0, record));
  EXPECT_FALSE(decoder.decode(*index, std::filesystem::file_size(index_file) + 10, record));
}

TEST_F(RepodataIndexTest, BadJsonIsAParseErrorWithItsOffset) {
  const auto json = dir / "repodata.json";
  testing::write_text_file(json, R"({"packages":{"a-1-0.tar.bz2":{"name":"a",,}}})");
  const auto built = build(json);
  ASSERT_FALSE(built);
  EXPECT_TRUE(built.error().json_invalid);
  EXPECT_TRUE(built.error().error.byte_offset.has_value()) << built.error().error.message;
  EXPECT_FALSE(std::filesystem::exists(index_file));
}

TEST_F(RepodataIndexTest, AnUnwritableCacheIsNotAJsonError) {
  const auto json = testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json";
  testing::write_text_file(dir / "file", "");
  index_file = dir / "file/below-a-file.index";
  const auto built = build(json);
  ASSERT_FALSE(built);
  EXPECT_FALSE(built.error().json_invalid);
}

TEST_F(RepodataIndexTest, KeepsSkippedRecordsForLaterWarnings) {
  const auto json = dir / "repodata.json";
  testing::write_text_file(json, R"({"packages":{"a-1-0.tar.bz2":{"name":"a","version":"1","build":"0"},
                                     "b-1-0.tar.bz2":{"version":"1","build":"0"}}})");
  ASSERT_TRUE(build(json));
  auto index = RepodataIndex::open(index_file, "stamp-1");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->skipped_records(), 1u);
  ASSERT_EQ(index->first_skipped().size(), 1u);
  EXPECT_EQ(index->first_skipped()[0].filename, "b-1-0.tar.bz2");
}

}  // namespace
}  // namespace gpuenv::repodata
