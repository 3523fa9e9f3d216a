// CEP 48 repodata revisions: the `v3` records (CEP 43 conditions, CEP 44
// extra_depends, CEP 45 flags inside) and info.repodata_revisions, through
// the whole-document parser and the per-name index (which streams, and
// hands v3 documents to the whole-document parser).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "gpuenv/repodata/repodata_index.hpp"
#include "gpuenv/repodata/repodata_parser.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::repodata {
namespace {

struct Copied {
  std::string name, version;
  std::vector<std::string> depends, flags;
};

class Collecting : public RecordSink {
 public:
  void on_header(const RepodataHeader& h) override { header = h; }
  void on_record(const RawRecord& r) override {
    records[std::string(r.filename)] = {std::string(r.name), std::string(r.version),
                                        {r.depends.begin(), r.depends.end()}, {r.flags.begin(), r.flags.end()}};
  }
  RepodataHeader header;
  std::map<std::string, Copied> records;
};

// CEP 48's example, with a .tar.bz2 superseded by a v3 .conda, a message,
// flags and a condition.
constexpr const char* v3_document = R"({
  "repodata_version": 1,
  "info": {"subdir": "noarch", "repodata_revisions": {
    "v3": {"message": "This channel has v3 records\u001b[2J", "n_packages": 2, "oldest": 1773851561010,
           "newest": 1773851561011, "future_key": [1]},
    "v4": null}},
  "packages": {
    "example-1.0.0-0.tar.bz2": {"build": "0", "build_number": 0, "depends": [], "name": "example",
                                "version": "1.0.0", "subdir": "noarch"},
    "example-3.0.0-0.tar.bz2": {"build": "0", "build_number": 0, "depends": [], "name": "example",
                                "version": "3.0.0", "subdir": "noarch"}},
  "v3": {
    "tar.bz2": {},
    "conda": {
      "example-3.0.0-0": {"build": "0", "build_number": 0, "name": "example", "version": "3.0.0",
                          "subdir": "noarch", "depends": ["package[version=2,build_number=0,when=__unix]"],
                          "extra_depends": {"test": ["test-dependency"]}, "flags": ["cuda", "blas:mkl"],
                          "indexed_timestamp": 1773851561010}},
    "whl": {"example-9-0": {"name": "example", "version": "9", "build": "0"}}
  }
})";

TEST(RepodataV3, RecordsUnderV3AreReadWithTheirExtension) {
  Collecting sink;
  const auto summary = parse_repodata_text(v3_document, sink);
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_TRUE(sink.records.contains("example-3.0.0-0.conda"));
  EXPECT_FALSE(sink.records.contains("example-3.0.0-0.tar.bz2"));  // its v3 .conda supersedes it
  EXPECT_TRUE(sink.records.contains("example-1.0.0-0.tar.bz2"));
  EXPECT_FALSE(sink.records.contains("example-9-0.whl"));  // not a conda archive
  EXPECT_EQ(summary->superseded_tar_bz2, 1u);
  const auto& v3 = sink.records.at("example-3.0.0-0.conda");
  EXPECT_EQ(v3.depends, std::vector<std::string>{"package[version=2,build_number=0,when=__unix]"});
  EXPECT_EQ(v3.flags, (std::vector<std::string>{"cuda", "blas:mkl"}));
}

TEST(RepodataV3, RevisionsAreReadAndTheirMessageMadeSafeToPrint) {
  Collecting sink;
  const auto summary = parse_repodata_text(v3_document, sink);
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_EQ(sink.header.revisions.size(), 1u);  // "v4": null is not a revision (CEP 48: a dictionary)
  const auto& v3 = sink.header.revisions[0];
  EXPECT_EQ(v3.key, "v3");
  EXPECT_EQ(v3.message, "This channel has v3 records [2J");  // the escape character is gone
  EXPECT_EQ(v3.n_packages, 2u);
  EXPECT_EQ(v3.oldest_ms, 1773851561010u);
  EXPECT_EQ(v3.newest_ms, 1773851561011u);
}

TEST(RepodataV3, AMessageIsCutAtTheCepsLimit) {
  const std::string long_message(9000, 'x');
  const std::string document = R"({"info": {"repodata_revisions": {"v3": {"message": ")" + long_message +
                               R"("}}}, "packages": {}})";
  Collecting sink;
  ASSERT_TRUE(parse_repodata_text(document, sink));
  ASSERT_EQ(sink.header.revisions.size(), 1u);
  EXPECT_EQ(sink.header.revisions[0].message.size(), 8192u);
}

TEST(RepodataV3, TheIndexKeepsV3RecordsFlagsAndRevisions) {
  testing::TempDirectory dir;
  const auto json = dir / "repodata.json";
  testing::write_text_file(json, v3_document);
  IndexBuildOptions options;
  options.stamp = "stamp";
  options.chunk_bytes = 256;  // the streaming parser is tried first
  const auto index_file = dir / "subdir.index";
  const auto built = build_repodata_index(json, index_file, options);
  ASSERT_TRUE(built) << built.error().error.message;
  auto index = RepodataIndex::open(index_file, "stamp");
  ASSERT_TRUE(index) << index.error();
  ASSERT_EQ(index->header().revisions.size(), 1u);
  EXPECT_EQ(index->header().revisions[0].message, "This channel has v3 records [2J");
  EXPECT_EQ(index->header().revisions[0].n_packages, 2u);
  EXPECT_EQ(index->header().revisions[0].newest_ms, 1773851561011u);
  const auto offsets = index->records_named("example");
  ASSERT_EQ(offsets.size(), 2u);
  RepodataIndex::Decoder decoder;
  RawRecord record;
  ASSERT_TRUE(decoder.decode(*index, offsets.back(), record));
  EXPECT_EQ(record.filename, "example-3.0.0-0.conda");
  EXPECT_EQ(std::vector<std::string_view>(record.flags.begin(), record.flags.end()),
            (std::vector<std::string_view>{"cuda", "blas:mkl"}));
}

}  // namespace
}  // namespace gpuenv::repodata
