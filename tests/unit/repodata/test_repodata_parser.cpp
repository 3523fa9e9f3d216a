// repodata.json parsing: real channel indexes from ../shared/testdata and
// small hand-written documents for the edge cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gpuenv/repodata/repodata_parser.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::repodata {
namespace {

// Copies what the parser hands out, so tests can look at it afterwards.
struct CopiedRecord {
  std::string filename, name, version, build, subdir, md5, sha256, license, license_family;
  ArchiveKind archive = ArchiveKind::tar_bz2;
  std::uint64_t build_number = 0;
  std::optional<std::uint64_t> size;
  std::uint64_t timestamp_ms = 0;
  specs::NoarchType noarch = specs::NoarchType::none;
  std::vector<std::string> depends, constrains, track_features, features;
};

class CollectingSink : public RecordSink {
 public:
  void on_header(const RepodataHeader& h) override {
    header = h;
    ++headers;
  }
  void on_record(const RawRecord& r) override {
    EXPECT_EQ(headers, 1) << "the header comes before the first record";
    CopiedRecord copy;
    copy.filename = r.filename;
    copy.name = r.name;
    copy.version = r.version;
    copy.build = r.build;
    copy.subdir = r.subdir;
    copy.md5 = r.md5;
    copy.sha256 = r.sha256;
    copy.license = r.license;
    copy.license_family = r.license_family;
    copy.archive = r.archive;
    copy.build_number = r.build_number;
    copy.size = r.size;
    copy.timestamp_ms = r.timestamp_ms;
    copy.noarch = r.noarch;
    copy.depends.assign(r.depends.begin(), r.depends.end());
    copy.constrains.assign(r.constrains.begin(), r.constrains.end());
    copy.track_features.assign(r.track_features.begin(), r.track_features.end());
    copy.features.assign(r.features.begin(), r.features.end());
    records[copy.filename] = std::move(copy);
  }
  RepodataHeader header;
  int headers = 0;
  std::map<std::string, CopiedRecord> records;
};

std::filesystem::path testdata(const std::string& relative) { return gpuenv::testing::testdata_dir() / relative; }

TEST(RepodataParser, PrefersTheCondaArchiveOfAPackagePublishedInBothFormats) {
  CollectingSink sink;
  const auto summary = parse_repodata_file(testdata("channels/conda-format-repo/linux-64/repodata.json"), sink);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(sink.header.subdir, "linux-64");
  EXPECT_EQ(summary->records, 2u);
  EXPECT_EQ(summary->conda_records, 1u);
  EXPECT_EQ(summary->superseded_tar_bz2, 1u);
  ASSERT_EQ(sink.records.size(), 2u);
  ASSERT_TRUE(sink.records.contains("zlib-1.2.11-h7b6447c_3.conda"));
  EXPECT_FALSE(sink.records.contains("zlib-1.2.11-h7b6447c_3.tar.bz2"));
  const auto& zlib = sink.records.at("zlib-1.2.11-h7b6447c_3.conda");
  EXPECT_EQ(zlib.archive, ArchiveKind::conda);
  // The .conda's own checksums, not the .tar.bz2's.
  EXPECT_EQ(zlib.sha256, "f33afff2144e1d6c4cf2e3e184937db8bf825b4537df74662aea5ee207b6a31b");
  EXPECT_EQ(zlib.md5, "cb23839f06da92ec92c6d2d2d5e0cb4a");
  EXPECT_EQ(zlib.size, 105917u);
  EXPECT_EQ(zlib.depends, std::vector<std::string>{"libgcc-ng >=7.3.0"});
  EXPECT_EQ(zlib.license_family, "Other");
  EXPECT_EQ(zlib.timestamp_ms, 1542814864621u);
  EXPECT_TRUE(sink.records.contains("libgcc-ng-8.2.0-hdf63c60_1.tar.bz2"));
}

TEST(RepodataParser, ReadsEveryRecordOfTheDefaultsRChannel) {
  CollectingSink sink;
  const auto summary = parse_repodata_file(testdata("repodata/conda-tests/r_linux-64.json"), sink);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->records, 4211u);
  EXPECT_EQ(summary->skipped, 0u);
  EXPECT_EQ(sink.records.size(), 4211u);
  const auto& r_base = sink.records.at("r-base-3.1.2-0.tar.bz2");
  EXPECT_EQ(r_base.name, "r-base");
  EXPECT_EQ(r_base.version, "3.1.2");
  EXPECT_EQ(r_base.build, "0");
  EXPECT_EQ(r_base.build_number, 0u);
  EXPECT_EQ(r_base.license, "GPL");
  EXPECT_EQ(r_base.size, 21297871u);
  EXPECT_EQ(r_base.sha256, "9485bd8da9033fc63e9ead3266952c09aa6c86d0ab06382b8f7ac1b11356865a");
  ASSERT_EQ(r_base.depends.size(), 13u);
  EXPECT_EQ(r_base.depends.front(), "_r-mutex 1.* anacondar_1");
  EXPECT_EQ(r_base.depends.back(), "zlib");
}

TEST(RepodataParser, ReadsRepodataVersion2WithBaseUrlAndNullLists) {
  CollectingSink sink;
  const auto summary =
      parse_repodata_file(testdata("repodata/mamba-tests/conda-forge-repodata-version-2.json"), sink);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(sink.header.repodata_version, 2);
  EXPECT_EQ(sink.header.base_url, "https://repo.anaconda.com/repo/main/linux-64/");
  ASSERT_EQ(sink.records.size(), 2u);
  // "depends": null and "constrains": null are empty lists.
  EXPECT_TRUE(sink.records.at("_libgcc_mutex-0.1-conda_forge.tar.bz2").depends.empty());
  EXPECT_TRUE(sink.records.at("_libgcc_mutex-0.1-conda_forge.tar.bz2").constrains.empty());
  // Timestamps in seconds are read as milliseconds (CEP 34).
  EXPECT_EQ(sink.records.at("bzip2-1.0.8-hd590300_5.conda").timestamp_ms, 1699279927000u);
}

TEST(RepodataParser, ReadsCondasLegacyFlatTestIndex) {
  CollectingSink sink;
  const auto summary = parse_repodata_file(testdata("repodata/conda-tests/legacy-index/index2.json"), sink);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_TRUE(sink.header.flat_index);
  EXPECT_EQ(summary->records, 4118u);
  EXPECT_TRUE(sink.records.contains("python-3.6.2-0.tar.bz2"));
}

TEST(RepodataParser, HandsOutTheHeaderFirstWhateverTheKeyOrder) {
  // `info` after the packages, `packages.conda` before `packages`.
  const std::string json = R"({
    "packages.conda": {"a-1.0-0.conda": {"name": "a", "version": "1.0", "build": "0", "build_number": 0}},
    "packages": {"a-1.0-0.tar.bz2": {"name": "a", "version": "1.0", "build": "0", "build_number": 0},
                 "b-2.0-1.tar.bz2": {"name": "b", "version": "2.0", "build": "1", "build_number": 1}},
    "info": {"subdir": "noarch", "base_url": "../pkgs/"},
    "repodata_version": 2,
    "removed": ["c-1.0-0.tar.bz2"]
  })";
  CollectingSink sink;
  const auto summary = parse_repodata_text(json, sink);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(sink.header.subdir, "noarch");
  EXPECT_EQ(sink.header.base_url, "../pkgs/");
  EXPECT_EQ(sink.header.removed, std::vector<std::string>{"c-1.0-0.tar.bz2"});
  EXPECT_EQ(sink.records.size(), 2u);
  EXPECT_TRUE(sink.records.contains("a-1.0-0.conda"));
  EXPECT_TRUE(sink.records.contains("b-2.0-1.tar.bz2"));
  EXPECT_EQ(summary->superseded_tar_bz2, 1u);
}

TEST(RepodataParser, OnlyTarBz2IgnoresTheCondaSection) {
  CollectingSink sink;
  ParseOptions options;
  options.only_tar_bz2 = true;
  const auto summary =
      parse_repodata_file(testdata("channels/conda-format-repo/linux-64/repodata.json"), sink, options);
  ASSERT_TRUE(summary);
  EXPECT_TRUE(sink.records.contains("zlib-1.2.11-h7b6447c_3.tar.bz2"));
  EXPECT_FALSE(sink.records.contains("zlib-1.2.11-h7b6447c_3.conda"));
}

TEST(RepodataParser, ReadsFieldsTheWaysRealRepodataWritesThem) {
  const std::string json = R"({"info": {"subdir": "linux-64"}, "packages": {
    "x-1-py_0.tar.bz2": {"name": "x", "version": "1", "build": "py_0", "build_number": "3",
      "noarch": "python", "track_features": "mkl, debug", "features": "blas_openblas",
      "license": "GPL \"v3\" \u00e9", "timestamp": 1.5e12, "size": 10, "subdir": "noarch",
      "depends": ["python >=3.8"], "constrains": ["numpy <2"], "unknown": {"nested": [1, {"a": null}]}},
    "y-1-0.tar.bz2": {"name": "y", "version": "1", "build": "0", "noarch": true,
      "track_features": ["a b", "c"], "md5": null}
  }})";
  CollectingSink sink;
  const auto summary = parse_repodata_text(json, sink);
  ASSERT_TRUE(summary) << summary.error().message;
  const auto& x = sink.records.at("x-1-py_0.tar.bz2");
  EXPECT_EQ(x.build_number, 3u);
  EXPECT_EQ(x.noarch, specs::NoarchType::python);
  EXPECT_EQ(x.track_features, (std::vector<std::string>{"mkl", "debug"}));
  EXPECT_EQ(x.features, std::vector<std::string>{"blas_openblas"});
  EXPECT_EQ(x.license, "GPL \"v3\" \xc3\xa9");  // escapes decoded
  EXPECT_EQ(x.timestamp_ms, 1500000000000u);
  EXPECT_EQ(x.subdir, "noarch");
  EXPECT_EQ(x.constrains, std::vector<std::string>{"numpy <2"});
  const auto& y = sink.records.at("y-1-0.tar.bz2");
  EXPECT_EQ(y.noarch, specs::NoarchType::generic);
  EXPECT_EQ(y.build_number, 0u);
  EXPECT_EQ(y.track_features, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(y.md5.empty());
}

TEST(RepodataParser, SkipsUnusableRecordsAndKeepsTheRest) {
  const std::string json = R"({"packages": {
    "noname-1-0.tar.bz2": {"version": "1", "build": "0"},
    "badnum-1-0.tar.bz2": {"name": "badnum", "version": "1", "build": "0", "build_number": [1]},
    "notobject-1-0.tar.bz2": 42,
    "good-1-0.tar.bz2": {"name": "good", "version": "1", "build": "0"}
  }})";
  CollectingSink sink;
  const auto summary = parse_repodata_text(json, sink);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->records, 1u);
  EXPECT_EQ(summary->skipped, 3u);
  ASSERT_EQ(summary->first_skipped.size(), 3u);
  EXPECT_EQ(summary->first_skipped[0].filename, "noname-1-0.tar.bz2");
  EXPECT_EQ(summary->first_skipped[0].reason, "no 'name'");
  EXPECT_NE(summary->first_skipped[1].reason.find("build_number"), std::string::npos);
  EXPECT_TRUE(sink.records.contains("good-1-0.tar.bz2"));
}

TEST(RepodataParser, RefusesKeysThatAreNotTheRecordsOwnBareFileName) {
  // Issue 9: the key becomes <pkgs>/<key> and <pkgs>/<stem>/ in the package
  // cache, so "../../victim/target.tar.bz2" reached outside it.
  const std::string json = R"({"info": {"subdir": "linux-64"}, "packages": {
    "../../victim/target.tar.bz2": {"name": "target", "version": "1.0", "build": "0"},
    "/tmp/abs-1.0-0.tar.bz2": {"name": "abs", "version": "1.0", "build": "0"},
    "sub/dir-1.0-0.tar.bz2": {"name": "sub/dir", "version": "1.0", "build": "0"},
    "..\/..\/escaped-1.0-0.tar.bz2": {"name": "escaped", "version": "1.0", "build": "0"},
    "back\\slash-1.0-0.tar.bz2": {"name": "back\\slash", "version": "1.0", "build": "0"},
    "nul\u0000-1.0-0.tar.bz2": {"name": "nul\u0000", "version": "1.0", "build": "0"},
    "other-1.0-0.tar.bz2": {"name": "mismatch", "version": "1.0", "build": "0"},
    "noext-1.0-0": {"name": "noext", "version": "1.0", "build": "0"},
    "good-1.0-0.tar.bz2": {"name": "good", "version": "1.0", "build": "0"}
  }, "packages.conda": {
    "../escape-2.0-0.conda": {"name": "escape", "version": "2.0", "build": "0"},
    "good-2.0-0.conda": {"name": "good", "version": "2.0", "build": "0"}
  }})";
  CollectingSink sink;
  ParseOptions options;
  options.skipped_examples = 20;
  const auto summary = parse_repodata_text(json, sink, options);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->records, 2u);
  EXPECT_EQ(summary->skipped, 9u);
  EXPECT_EQ(sink.records.size(), 2u);
  EXPECT_TRUE(sink.records.contains("good-1.0-0.tar.bz2"));
  EXPECT_TRUE(sink.records.contains("good-2.0-0.conda"));
  std::map<std::string, std::string> reasons;
  for (const auto& skipped : summary->first_skipped) reasons[skipped.filename] = skipped.reason;
  EXPECT_NE(reasons["../../victim/target.tar.bz2"].find("'/'"), std::string::npos);
  EXPECT_NE(reasons["/tmp/abs-1.0-0.tar.bz2"].find("'/'"), std::string::npos);
  EXPECT_NE(reasons["sub/dir-1.0-0.tar.bz2"].find("'/'"), std::string::npos);
  EXPECT_NE(reasons["../../escaped-1.0-0.tar.bz2"].find("'/'"), std::string::npos);
  EXPECT_NE(reasons["back\\slash-1.0-0.tar.bz2"].find("'\\'"), std::string::npos);
  EXPECT_NE(reasons[std::string("nul\0-1.0-0.tar.bz2", 18)].find("control character"), std::string::npos);
  EXPECT_NE(reasons["other-1.0-0.tar.bz2"].find("name-version-build"), std::string::npos);
  EXPECT_NE(reasons["noext-1.0-0"].find(".conda or .tar.bz2"), std::string::npos);
  EXPECT_NE(reasons["../escape-2.0-0.conda"].find("'/'"), std::string::npos);
}

TEST(RepodataParser, RefusesARecordWithANulInAnyString) {
  // Issue 10: libsolv and every C API downstream read strings up to the
  // first NUL, so "py36\u0000_evil" would be solved, printed and fetched as
  // something the channel did not write. Such a record is refused, naming
  // the field.
  const std::string json = R"({"info": {"subdir": "linux-64"}, "packages": {
    "a-1.0-0.tar.bz2": {"name": "a", "version": "1.0", "build": "0", "depends": ["python\u0000 >=9"]},
    "b-1.0-0.tar.bz2": {"name": "b", "version": "1.0", "build": "0", "constrains": ["x <1\u0000"]},
    "c-1.0-0.tar.bz2": {"name": "c", "version": "1.0", "build": "0", "subdir": "linux-64\u0000"},
    "d-1.0-0.tar.bz2": {"name": "d", "version": "1.0", "build": "0", "track_features": "f\u0000g"},
    "e-1.0-0.tar.bz2": {"name": "e", "version": "1.0", "build": "0", "features": ["nomkl\u0000"]},
    "f-1.0-0.tar.bz2": {"name": "f", "version": "1.0", "build": "0", "md5": "\u0000"},
    "g-1.0-0.tar.bz2": {"name": "g", "version": "1.0", "build": "0", "license": "MIT\u0000"},
    "h-1.0-py36\u0000_0.tar.bz2": {"name": "h", "version": "1.0", "build": "py36\u0000_0"},
    "i-1.0-py36.tar.bz2": {"name": "i", "version": "1.0", "build": "py36\u0000_0"},
    "good-1.0-0.tar.bz2": {"name": "good", "version": "1.0", "build": "0", "depends": ["python >=3"]}
  }})";
  CollectingSink sink;
  ParseOptions options;
  options.skipped_examples = 20;
  const auto summary = parse_repodata_text(json, sink, options);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->records, 1u);
  EXPECT_TRUE(sink.records.contains("good-1.0-0.tar.bz2"));
  std::map<std::string, std::string> reasons;
  for (const auto& skipped : summary->first_skipped) reasons[skipped.filename] = skipped.reason;
  for (const auto& [filename, field] : std::vector<std::pair<std::string, std::string>>{
           {"a-1.0-0.tar.bz2", "'depends'"},
           {"b-1.0-0.tar.bz2", "'constrains'"},
           {"c-1.0-0.tar.bz2", "'subdir'"},
           {"d-1.0-0.tar.bz2", "'track_features'"},
           {"e-1.0-0.tar.bz2", "'features'"},
           {"f-1.0-0.tar.bz2", "'md5'"},
           {"g-1.0-0.tar.bz2", "'license'"},
           {"i-1.0-py36.tar.bz2", "'build'"}}) {
    SCOPED_TRACE(filename);
    ASSERT_TRUE(reasons.contains(filename));
    EXPECT_NE(reasons[filename].find("NUL"), std::string::npos) << reasons[filename];
    EXPECT_NE(reasons[filename].find(field), std::string::npos) << reasons[filename];
  }
  EXPECT_TRUE(reasons.contains(std::string("h-1.0-py36\0_0.tar.bz2", 21)));
}

TEST(RepodataParser, TruncatedJsonNamesTheSourceAndTheByteOffset) {
  const std::string json = "{\"info\": {\"subdir\": \"linux-64\"},\n \"packages\": {\"a-1-0.tar.bz2\": {\"name\": \"a\",";
  CollectingSink sink;
  ParseOptions options;
  options.source_label = "https://example.org/chan/linux-64/repodata.json";
  const auto summary = parse_repodata_text(json, sink, options);
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().source, options.source_label);
  ASSERT_TRUE(summary.error().byte_offset.has_value());
  EXPECT_EQ(*summary.error().byte_offset, json.size());
  EXPECT_NE(summary.error().message.find("truncated"), std::string::npos);
  EXPECT_NE(summary.error().message.find(options.source_label), std::string::npos);
  EXPECT_NE(summary.error().message.find("at byte"), std::string::npos);
  EXPECT_NE(summary.error().message.find("line 2"), std::string::npos);
}

TEST(RepodataParser, SyntaxErrorOffsetPointsAtTheProblem) {
  // A missing colon after "build".
  const std::string json = R"({"packages": {"a-1-0.tar.bz2": {"name": "a", "build" "0"}}})";
  CollectingSink sink;
  const auto summary = parse_repodata_text(json, sink);
  ASSERT_FALSE(summary);
  ASSERT_TRUE(summary.error().byte_offset.has_value());
  const auto near = json.find("\"build\"");
  EXPECT_GE(*summary.error().byte_offset, near);
  EXPECT_LE(*summary.error().byte_offset, near + 12);
}

TEST(RepodataParser, InvalidUtf8IsReportedAtItsByte) {
  std::string json = R"({"packages": {"a-1-0.tar.bz2": {"name": "a", "version": "1", "build": "0", "license": "X"}}})";
  const auto at = json.find("\"X\"") + 1;
  json[at] = '\xff';
  CollectingSink sink;
  const auto summary = parse_repodata_text(json, sink);
  ASSERT_FALSE(summary);
  ASSERT_TRUE(summary.error().byte_offset.has_value());
  EXPECT_EQ(*summary.error().byte_offset, at);
}

TEST(RepodataParser, NonObjectAndEmptyDocumentsAreErrors) {
  CollectingSink sink;
  const auto array = parse_repodata_text("[1, 2]", sink);
  ASSERT_FALSE(array);
  EXPECT_NE(array.error().message.find("not a JSON object"), std::string::npos);
  const auto empty = parse_repodata_text("", sink);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos);
}

TEST(RepodataParser, MissingFileNamesThePath) {
  gpuenv::testing::TempDirectory dir;
  CollectingSink sink;
  const auto summary = parse_repodata_file(dir / "missing/repodata.json", sink);
  ASSERT_FALSE(summary);
  EXPECT_NE(summary.error().message.find("missing/repodata.json"), std::string::npos);
}

TEST(RepodataParser, ReadsAFileWhoseSizeEndsRightAtAPageBoundary) {
  // The mapping must still give simdjson readable padding after the end.
  gpuenv::testing::TempDirectory dir;
  std::string json = R"({"packages": {"a-1-0.tar.bz2": {"name": "a", "version": "1", "build": "0", "license": ")";
  const std::string tail = "\"}}}";
  json.append(4096 - json.size() - tail.size(), 'x');
  json += tail;
  ASSERT_EQ(json.size(), 4096u);
  gpuenv::testing::write_text_file(dir / "repodata.json", json);
  CollectingSink sink;
  const auto summary = parse_repodata_file(dir / "repodata.json", sink);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->records, 1u);
}

}  // namespace
}  // namespace gpuenv::repodata
