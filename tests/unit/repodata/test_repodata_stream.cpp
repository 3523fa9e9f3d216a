// The streaming repodata parser against the whole-document one: the same
// records in the same order, whatever the chunk size, key order or layout;
// shapes it cannot stream are refused (the caller then parses whole), never
// read wrongly.
#include <gtest/gtest.h>

#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpuenv/repodata/file_growth.hpp"
#include "gpuenv/repodata/repodata_parser.hpp"
#include "gpuenv/repodata/repodata_stream.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::repodata {
namespace {

using testing::TempDirectory;

// Everything a RawRecord says, as one line.
std::string describe(const RawRecord& record) {
  std::string text = std::string(record.filename) + "|" + std::string(record.name) + "|" +
                     std::string(record.version) + "|" + std::string(record.build) + "|" +
                     std::to_string(record.build_number) + "|" + std::string(record.subdir) + "|" +
                     std::string(record.md5) + "|" + std::string(record.sha256) + "|" +
                     (record.size ? std::to_string(*record.size) : "-") + "|" + std::to_string(record.timestamp_ms) +
                     "|" + std::string(record.license) + "|" + std::string(record.license_family) + "|" +
                     std::string(specs::to_string(record.noarch)) + "|" +
                     std::string(record.python_site_packages_path);
  for (const auto list : {record.depends, record.constrains, record.track_features, record.features}) {
    text += "|";
    for (const auto item : list) text += std::string(item) + ";";
  }
  return text;
}

struct Collected final : RecordSink, RecordStreamSink {
  std::vector<std::string> records;
  void on_header(const RepodataHeader&) override {}
  void on_record(const RawRecord& record) override { records.push_back(describe(record)); }
};

std::vector<std::string> whole(const std::filesystem::path& path) {
  Collected sink;
  const auto parsed = parse_repodata_file(path, sink);
  EXPECT_TRUE(parsed) << parsed.error().message;
  return sink.records;
}

std::expected<std::vector<std::string>, NotStreamable> streamed(const std::filesystem::path& path,
                                                                std::size_t chunk_bytes,
                                                                ParseSummary* summary = nullptr) {
  Collected sink;
  StreamOptions options;
  options.chunk_bytes = chunk_bytes;
  auto parsed = stream_repodata_file(path, sink, options);
  if (!parsed) return std::unexpected(parsed.error());
  if (summary != nullptr) *summary = *parsed;
  return sink.records;
}

// A record with every field kind, `n` making it unique.
std::string record_json(int n, const std::string& extra = "") {
  return "{\"build\":\"py312h" + std::to_string(n) + "_0\",\"build_number\":" + std::to_string(n % 3) +
         ",\"depends\":[\"python >=3.12,<3.13.0a0\",\"libzlib >=1.3.1,<2.0a0\"],\"constrains\":[\"pkg-b <2\"]," +
         "\"license\":\"MIT\",\"md5\":\"0123456789abcdef0123456789abcdef\",\"name\":\"pkg-" + std::to_string(n % 7) +
         "\",\"sha256\":\"" + std::string(64, 'a') + "\",\"size\":" + std::to_string(1000 + n) +
         ",\"subdir\":\"linux-64\",\"timestamp\":" + std::to_string(1700000000000 + n) + extra +
         ",\"version\":\"1." + std::to_string(n) + "\"}";
}

// The key of record_json(n): its own name-version-build.
std::string record_key(int n, const std::string& extension) {
  return "pkg-" + std::to_string(n % 7) + "-1." + std::to_string(n) + "-py312h" + std::to_string(n) + "_0" + extension;
}

std::string channel_json(int tar_records, int conda_records, const std::string& info_first = "info") {
  std::string packages;
  for (int i = 0; i < tar_records; ++i) {
    if (i > 0) packages += ",";
    packages += "\"" + record_key(i, ".tar.bz2") + "\":" + record_json(i);
  }
  std::string conda;
  for (int i = 0; i < conda_records; ++i) {
    if (i > 0) conda += ",";
    const int n = 1000 + i;
    conda += "\"" + record_key(n, ".conda") + "\":" + record_json(n);
  }
  const std::string info = "\"info\":{\"subdir\":\"linux-64\",\"base_url\":\"https://example.org/pkgs\"}";
  const std::string sections = "\"packages\":{" + packages + "},\"packages.conda\":{" + conda + "}";
  const std::string tail = "\"removed\":[\"old-1.0-0.tar.bz2\"],\"repodata_version\":2";
  return info_first == "info" ? "{" + info + "," + sections + "," + tail + "}"
                              : "{" + sections + "," + tail + "," + info + "}";
}

TEST(RepodataStream, HandsOutTheWholeParsersRecordsAtEveryChunkSize) {
  TempDirectory dir;
  const auto path = dir / "repodata.json";
  testing::write_text_file(path, channel_json(300, 200));
  const auto expected = whole(path);
  ASSERT_EQ(expected.size(), 500u);
  for (const std::size_t chunk : {256u, 1000u, 4096u, 65536u, 4u << 20}) {
    ParseSummary summary;
    const auto records = streamed(path, chunk, &summary);
    ASSERT_TRUE(records) << "chunk " << chunk << ": " << records.error().reason;
    EXPECT_EQ(*records, expected) << "chunk " << chunk;
    EXPECT_EQ(summary.records, 500u);
    EXPECT_EQ(summary.conda_records, 200u);
    EXPECT_EQ(summary.header.subdir, "linux-64");
    EXPECT_EQ(summary.header.base_url, "https://example.org/pkgs");
    EXPECT_EQ(summary.header.repodata_version, 2);
    EXPECT_EQ(summary.header.removed, (std::vector<std::string>{"old-1.0-0.tar.bz2"}));
  }
}

TEST(RepodataStream, ReadsTheHeaderWhereverItIs) {
  TempDirectory dir;
  const auto path = dir / "repodata.json";
  testing::write_text_file(path, channel_json(40, 10, "info last"));
  ParseSummary summary;
  const auto records = streamed(path, 512, &summary);
  ASSERT_TRUE(records) << records.error().reason;
  EXPECT_EQ(*records, whole(path));
  EXPECT_EQ(summary.header.subdir, "linux-64");
  EXPECT_EQ(summary.header.base_url, "https://example.org/pkgs");
}

TEST(RepodataStream, ReadsIndentedRepodataLikeCondaIndexWritesIt) {
  // conda-build's index test channel: indent=2, sorted keys.
  const auto path = testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json";
  const auto expected = whole(path);
  ASSERT_FALSE(expected.empty());
  for (const std::size_t chunk : {256u, 4u << 20}) {
    const auto records = streamed(path, chunk);
    ASSERT_TRUE(records) << records.error().reason;
    EXPECT_EQ(*records, expected);
  }
}

TEST(RepodataStream, RealChannelsStreamAsTheyParse) {
  for (const char* relative : {"repodata/conda-tests/r_linux-64.json", "repodata/conda-tests/main_noarch.json",
                               "channels/conda-format-repo/linux-64/repodata.json",
                               "repodata/mamba-tests/conda-forge-repodata-version-2.json"}) {
    const auto path = testing::testdata_dir() / relative;
    const auto records = streamed(path, 4096);
    ASSERT_TRUE(records) << relative << ": " << records.error().reason;
    // The whole parser drops .tar.bz2 records whose .conda twin exists; the
    // stream leaves that to its consumer.
    const auto expected = whole(path);
    EXPECT_GE(records->size(), expected.size()) << relative;
    for (const auto& record : expected) {
      EXPECT_NE(std::find(records->begin(), records->end(), record), records->end()) << relative << ": " << record;
    }
  }
}

TEST(RepodataStream, StringsThatLookLikeRecordBoundariesDoNotMatter) {
  // Quotes inside a string are escaped, so `},"x.conda":{` cannot occur in
  // one: these records stream at every chunk size.
  TempDirectory dir;
  const auto path = dir / "repodata.json";
  std::string packages;
  for (int i = 0; i < 60; ++i) {
    if (i > 0) packages += ",";
    const std::string trap = i % 2 ? ",\"license_family\":\"x},\\\"decoy-1.0-0.conda\\\":{\\\"name\\\":1\""
                                   : ",\"summary\":\"},\\\"z.conda\\\":{ \\\\\"";
    packages += "\"" + record_key(i, ".tar.bz2") + "\":" + record_json(i, trap);
  }
  testing::write_text_file(path, "{\"packages\":{" + packages + "},\"packages.conda\":{}}");
  const auto expected = whole(path);
  ASSERT_EQ(expected.size(), 60u);
  for (std::size_t chunk = 256; chunk < 20000; chunk += 97) {
    const auto records = streamed(path, chunk);
    ASSERT_TRUE(records) << "chunk " << chunk << ": " << records.error().reason;
    EXPECT_EQ(*records, expected) << "chunk " << chunk;
  }
}

TEST(RepodataStream, ANestedObjectThatLooksLikeARecordIsNeverCutWrongly) {
  // An object inside a record whose keys look like package files: a cut
  // there is a wrong guess, which the chunk's parse must catch. Whatever
  // the chunk size, the records come out right or the stream declines.
  TempDirectory dir;
  const auto path = dir / "repodata.json";
  std::string packages;
  for (int i = 0; i < 60; ++i) {
    if (i > 0) packages += ",";
    const std::string nested = i % 5 == 0 ? ",\"extra\":{\"a.conda\":{},\"b.conda\":{\"c\":[]}}" : "";
    packages += "\"" + record_key(i, ".tar.bz2") + "\":" + record_json(i, nested);
  }
  testing::write_text_file(path, "{\"packages\":{" + packages + "},\"packages.conda\":{}}");
  const auto expected = whole(path);
  ASSERT_EQ(expected.size(), 60u);
  int declined = 0;
  for (std::size_t chunk = 256; chunk < 20000; chunk += 97) {
    const auto records = streamed(path, chunk);
    if (records) EXPECT_EQ(*records, expected) << "chunk " << chunk;
    else ++declined;
  }
  EXPECT_GT(declined, 0);  // the trap was really laid
  const auto one_chunk = streamed(path, 1u << 20);
  ASSERT_TRUE(one_chunk) << one_chunk.error().reason;
  EXPECT_EQ(*one_chunk, expected);
}

TEST(RepodataStream, DeclinesWhatItCannotStream) {
  TempDirectory dir;
  // conda's old flat test index: filenames at the top level.
  EXPECT_FALSE(streamed(testing::testdata_dir() / "repodata/conda-tests/legacy-index/index4.json", 4096));
  const auto truncated = dir / "truncated.json";
  const std::string full = channel_json(50, 0);
  testing::write_text_file(truncated, full.substr(0, full.size() / 2));
  EXPECT_FALSE(streamed(truncated, 512));
  const auto not_json = dir / "not-json.json";
  testing::write_text_file(not_json, "<html>404</html>");
  EXPECT_FALSE(streamed(not_json, 512));
  const auto trailing = dir / "trailing.json";
  testing::write_text_file(trailing, channel_json(5, 5) + " {}");
  EXPECT_FALSE(streamed(trailing, 512));
  EXPECT_FALSE(streamed(dir / "missing.json", 512));
}

TEST(RepodataStream, CountsUnusableRecordsAsTheWholeParserDoes) {
  TempDirectory dir;
  const auto path = dir / "repodata.json";
  testing::write_text_file(path,
                           "{\"packages\":{\"a-1-0.tar.bz2\":{\"name\":\"a\",\"version\":\"1\",\"build\":\"0\"},"
                           "\"b-1-0.tar.bz2\":{\"version\":\"1\",\"build\":\"0\"},\"c-1-0.tar.bz2\":[],"
                           "\"d-1-0.tar.bz2\":{\"name\":\"d\",\"version\":\"1\",\"build\":\"0\",\"depends\":7}},"
                           "\"packages.conda\":{}}");
  ParseSummary summary;
  const auto records = streamed(path, 256, &summary);
  ASSERT_TRUE(records) << records.error().reason;
  EXPECT_EQ(*records, whole(path));
  EXPECT_EQ(summary.records, 1u);
  EXPECT_EQ(summary.skipped, 3u);
  ASSERT_EQ(summary.first_skipped.size(), 3u);
  EXPECT_EQ(summary.first_skipped[0].filename, "b-1-0.tar.bz2");
}

TEST(RepodataStream, RefusesKeysThatAreNotTheRecordsOwnBareFileName) {
  // Issue 9: the streaming parser gpuenv uses first refuses what the whole
  // parser refuses, at every chunk size.
  TempDirectory dir;
  const auto path = dir / "repodata.json";
  std::string packages;
  for (int i = 0; i < 30; ++i) {
    if (i > 0) packages += ",";
    // An escaped '/' (JSON's "\/") with another record's name, too.
    const std::string key = i % 3 == 0   ? "../../victim/" + record_key(i, ".tar.bz2")
                            : i % 3 == 1 ? "..\\/" + record_key(i + 1, ".tar.bz2")
                                         : record_key(i, ".tar.bz2");
    packages += "\"" + key + "\":" + record_json(i);
  }
  testing::write_text_file(path, "{\"packages\":{" + packages + "},\"packages.conda\":{}}");
  const auto expected = whole(path);
  ASSERT_EQ(expected.size(), 10u);
  for (std::size_t chunk = 256; chunk < 8000; chunk += 499) {
    ParseSummary summary;
    const auto records = streamed(path, chunk, &summary);
    ASSERT_TRUE(records) << "chunk " << chunk << ": " << records.error().reason;
    EXPECT_EQ(*records, expected) << "chunk " << chunk;
    EXPECT_EQ(summary.skipped, 20u);
    ASSERT_FALSE(summary.first_skipped.empty());
    EXPECT_EQ(summary.first_skipped[0].filename, "../../victim/" + record_key(0, ".tar.bz2"));
    EXPECT_EQ(summary.first_skipped[1].filename, "../" + record_key(2, ".tar.bz2"));
  }
}

TEST(RepodataStream, EmptySectionsAndDocuments) {
  TempDirectory dir;
  const auto empty_sections = dir / "a.json";
  testing::write_text_file(empty_sections, "{ \"info\" : {}, \"packages\" : { } , \"packages.conda\":{} }\n");
  const auto records = streamed(empty_sections, 256);
  ASSERT_TRUE(records) << records.error().reason;
  EXPECT_TRUE(records->empty());
  const auto empty_object = dir / "b.json";
  testing::write_text_file(empty_object, "{}");
  EXPECT_TRUE(streamed(empty_object, 256));
}

// A growing file: `text` written in pieces of `step` bytes by another thread
// (as a download writes it), parsed while it grows.
struct GrowingParse {
  Collected sink;
  std::expected<ParseSummary, NotStreamable> result = std::unexpected(NotStreamable{"not run"});
};

GrowingParse parse_while_writing(const std::filesystem::path& path, const std::string& text, std::size_t step,
                                 std::size_t chunk_bytes, bool abandon_halfway = false) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  auto growth = std::make_shared<FileGrowth>();
  GrowingParse parse;
  std::thread reader([&] {
    StreamOptions options;
    options.chunk_bytes = chunk_bytes;
    parse.result = stream_growing_repodata_file(fd, growth, parse.sink, options);
  });
  for (std::size_t at = 0; at < text.size(); at += step) {
    if (abandon_halfway && at >= text.size() / 2) {
      growth->abandoned();
      break;
    }
    const std::size_t piece = std::min(step, text.size() - at);
    std::fwrite(text.data() + at, 1, piece, out);
    std::fflush(out);
    growth->grew(at + piece);
    if (at % (step * 16) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  std::fclose(out);
  if (!abandon_halfway) growth->completed(text.size());
  reader.join();
  return parse;
}

TEST(RepodataStream, AGrowingFileParsesAsTheWholeFileDoes) {
  TempDirectory dir;
  const std::string text = channel_json(300, 200);
  testing::write_text_file(dir / "whole.json", text);
  const auto expected = whole(dir / "whole.json");
  for (const std::size_t step : {1u, 7u, 4096u, 131072u}) {
    for (const std::size_t chunk : {256u, 4096u, 4u << 20}) {
      if (step == 1 && chunk > 4096) continue;  // slow and adds nothing
      auto parse = parse_while_writing(dir / ("growing-" + std::to_string(step) + "-" + std::to_string(chunk)), text,
                                       step, chunk);
      ASSERT_TRUE(parse.result) << "step " << step << " chunk " << chunk << ": " << parse.result.error().reason;
      EXPECT_EQ(parse.sink.records, expected) << "step " << step << " chunk " << chunk;
      EXPECT_EQ(parse.result->bytes, text.size());
      EXPECT_EQ(parse.result->header.base_url, "https://example.org/pkgs");
    }
  }
}

TEST(RepodataStream, AGrowingFileThatIsAbandonedOrBrokenIsRefused) {
  TempDirectory dir;
  const std::string text = channel_json(100, 100);
  const auto abandoned = parse_while_writing(dir / "abandoned.json", text, 1000, 4096, /*abandon_halfway=*/true);
  EXPECT_FALSE(abandoned.result);
  // Complete but cut short, or with text after the document: the same
  // answers as for a file on disk.
  const auto cut = parse_while_writing(dir / "cut.json", text.substr(0, text.size() - 40), 1000, 4096);
  EXPECT_FALSE(cut.result);
  const auto trailing = parse_while_writing(dir / "trailing.json", text + " x", 1000, 4096);
  ASSERT_FALSE(trailing.result);
  EXPECT_EQ(trailing.result.error().reason, "text after the document");
  const auto spaces = parse_while_writing(dir / "spaces.json", text + " \n", 1000, 4096);
  EXPECT_TRUE(spaces.result) << spaces.result.error().reason;
}

}  // namespace
}  // namespace gpuenv::repodata
