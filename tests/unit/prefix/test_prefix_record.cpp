// conda-meta records: written as conda writes them, and records written by
// conda and micromamba read the same way.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::prefix {
namespace {

// A record `conda create` wrote (conda 24, as conda-package-handling's test
// suite records it), with its files filled in.
constexpr const char* kCondaRecord = R"({
  "build": "0",
  "build_number": 0,
  "channel": "file:///tmp/pytest-of-dholth/pytest-50/test_indexable0/noarch",
  "constrains": [],
  "depends": [],
  "extracted_package_dir": "/home/dholth/miniconda3/pkgs/somepackage-1.0-0",
  "files": ["lib/somepackage/__init__.py", "bin/somepackage"],
  "fn": "somepackage-1.0-0.conda",
  "license": "",
  "license_family": "",
  "link": {"source": "/home/dholth/miniconda3/pkgs/somepackage-1.0-0", "type": 1},
  "md5": "c551ede58a0344516e1b803de10ff5c8",
  "name": "somepackage",
  "package_tarball_full_path": "/home/dholth/miniconda3/pkgs/somepackage-1.0-0.conda",
  "paths_data": {
    "paths": [
      {"_path": "lib/somepackage/__init__.py", "path_type": "hardlink",
       "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
       "sha256_in_prefix": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
       "size_in_bytes": 0},
      {"_path": "bin/somepackage", "path_type": "hardlink", "file_mode": "text",
       "prefix_placeholder": "/opt/anaconda1anaconda2anaconda3",
       "sha256": "aa", "sha256_in_prefix": "bb", "size_in_bytes": 40}
    ],
    "paths_version": 1
  },
  "requested_spec": "test_indexable0/noarch::somepackage==1.0=0",
  "sha256": "ba7741b7ce1470357397f6f8f4d0467be8d4162006e5a87e276c28d3b2cfbc14",
  "size": 79824,
  "subdir": "noarch",
  "timestamp": 1721655445630,
  "url": "file:///tmp/pytest-of-dholth/pytest-50/test_indexable0/noarch/somepackage-1.0-0.conda",
  "version": "1.0"
})";

// The shape micromamba writes: no license_family, nulls for unknown
// values, the noarch pyc files python wrote as pyc_file entries, and an
// entry point.
constexpr const char* kMicromambaRecord = R"({
  "arch": null,
  "build": "pyhd8ed1ab_0",
  "build_number": 0,
  "build_string": "pyhd8ed1ab_0",
  "channel": "https://conda.anaconda.org/conda-forge/noarch",
  "constrains": [],
  "depends": ["python >=3.8"],
  "extracted_package_dir": "/home/u/micromamba/pkgs/tqdm-4.66.4-pyhd8ed1ab_0",
  "files": ["lib/python3.12/site-packages/tqdm/__init__.py",
            "lib/python3.12/site-packages/tqdm/__pycache__/__init__.cpython-312.pyc",
            "bin/tqdm"],
  "fn": "tqdm-4.66.4-pyhd8ed1ab_0.conda",
  "license": "MPL-2.0 or MIT",
  "link": {"source": "/home/u/micromamba/pkgs/tqdm-4.66.4-pyhd8ed1ab_0", "type": 1},
  "md5": "e74cd796e70a4261f86699ee0a3a7a24",
  "name": "tqdm",
  "noarch": "python",
  "package_tarball_full_path": "/home/u/micromamba/pkgs/tqdm-4.66.4-pyhd8ed1ab_0.conda",
  "paths_data": {
    "paths": [
      {"_path": "lib/python3.12/site-packages/tqdm/__init__.py", "path_type": "hardlink",
       "sha256": "cc", "size_in_bytes": 1570},
      {"_path": "lib/python3.12/site-packages/tqdm/__pycache__/__init__.cpython-312.pyc",
       "path_type": "pyc_file"},
      {"_path": "bin/tqdm", "path_type": "unix_python_entry_point"}
    ],
    "paths_version": 1
  },
  "platform": null,
  "requested_spec": "",
  "sha256": "6ef2f7d4f0c2f0a0e4c2b0a9b1a0c4b5e2e3d2f1a0b9c8d7e6f5a4b3c2d1e0f9",
  "size": 89519,
  "subdir": "noarch",
  "timestamp": 1714854870413,
  "track_features": "",
  "url": "https://conda.anaconda.org/conda-forge/noarch/tqdm-4.66.4-pyhd8ed1ab_0.conda",
  "version": "4.66.4"
})";

TEST(PrefixRecord, ReadsCondasRecord) {
  const auto record = parse_prefix_record(kCondaRecord, "conda.json");
  EXPECT_EQ(record.package.name, "somepackage");
  EXPECT_EQ(record.package.dist_str(), "somepackage-1.0-0");
  EXPECT_EQ(record.package.channel, "file:///tmp/pytest-of-dholth/pytest-50/test_indexable0/noarch");
  EXPECT_EQ(record.package.size, 79824u);
  EXPECT_EQ(record.link_type, LinkType::hardlink);
  EXPECT_EQ(record.link_source, "/home/dholth/miniconda3/pkgs/somepackage-1.0-0");
  EXPECT_EQ(record.requested_spec, "test_indexable0/noarch::somepackage==1.0=0");
  ASSERT_EQ(record.paths.size(), 2u);
  EXPECT_EQ(record.paths[1].prefix_placeholder, "/opt/anaconda1anaconda2anaconda3");
  EXPECT_EQ(record.paths[1].sha256_in_prefix, "bb");
  EXPECT_EQ(record.owned_paths(), (std::vector<std::string>{"lib/somepackage/__init__.py", "bin/somepackage"}));
}

TEST(PrefixRecord, ReadsMicromambasRecord) {
  const auto record = parse_prefix_record(kMicromambaRecord, "micromamba.json");
  EXPECT_EQ(record.package.name, "tqdm");
  EXPECT_EQ(record.package.noarch, specs::NoarchType::python);
  EXPECT_TRUE(record.package.arch.empty());
  EXPECT_TRUE(record.package.track_features.empty());
  ASSERT_EQ(record.paths.size(), 3u);
  EXPECT_EQ(record.paths[1].path_type, PrefixPathType::pyc_file);
  EXPECT_EQ(record.paths[2].path_type, PrefixPathType::unix_python_entry_point);
  EXPECT_EQ(record.owned_paths().size(), 3u);
}

TEST(PrefixRecord, FallsBackToFilesWithoutPathsData) {
  // conda before 4.3 wrote only `files`.
  const auto record = parse_prefix_record(
      R"({"name": "old", "version": "1", "build": "0", "files": ["bin/old", "lib/libold.so"]})", "x");
  EXPECT_FALSE(record.has_paths_data);
  EXPECT_EQ(record.owned_paths(), (std::vector<std::string>{"bin/old", "lib/libold.so"}));
}

TEST(PrefixRecord, WritesWhatItReads) {
  const auto record = parse_prefix_record(kMicromambaRecord, "micromamba.json");
  const auto again = parse_prefix_record(prefix_record_json(record), "again");
  EXPECT_EQ(again.package, record.package);
  EXPECT_EQ(again.paths, record.paths);
  EXPECT_EQ(again.files, record.files);
  EXPECT_EQ(again.link_type, record.link_type);
  EXPECT_EQ(again.extracted_package_dir, record.extracted_package_dir);
}

TEST(PrefixRecord, WritesCondasLayout) {
  const auto record = parse_prefix_record(kCondaRecord, "conda.json");
  const auto text = prefix_record_json(record);
  // conda: json.dump(indent=2, sort_keys=True).
  EXPECT_EQ(text.rfind("{\n  \"build\": \"0\",\n  \"build_number\": 0,\n", 0), 0u) << text;
  const auto json = nlohmann::json::parse(text);
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  // Every field conda writes for this record is there.
  const auto original = nlohmann::json::parse(kCondaRecord);
  for (const auto& [key, value] : original.items()) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
}

// conda writes json.dump(indent=2, sort_keys=True); nlohmann's dump(2) of
// the parsed text is that layout, so a record written any other way (key
// order, spacing, escapes) differs from it.
TEST(PrefixRecord, WritesExactlyTheSortedIndentedLayout) {
  for (const auto* source : {kCondaRecord, kMicromambaRecord}) {
    auto record = parse_prefix_record(source, "record.json");
    record.requested_specs = {"tqdm >=4", "https://user:secret@host/private::tqdm"};
    record.package.features = {"feature"};
    record.package.track_features = {"a", "b"};
    record.package.flags = {"flag"};
    record.package.purls = {"pkg:pypi/tqdm"};
    PrefixPathEntry odd;
    odd.path = "share/odd \"name\"\t\u00e9\x01.txt";
    odd.no_link = true;
    odd.size_in_bytes = 0;
    record.paths.push_back(odd);
    record.files.push_back(odd.path);
    const auto text = prefix_record_json(record);
    EXPECT_EQ(text, nlohmann::json::parse(text).dump(2) + "\n");
    EXPECT_EQ(text.find("secret"), std::string::npos);
    const auto again = parse_prefix_record(text, "again");
    EXPECT_EQ(again.paths, record.paths);
    EXPECT_EQ(again.files, record.files);
    EXPECT_EQ(again.package.features, record.package.features);
  }
}

TEST(PrefixRecord, RefusesToWriteAPathThatIsNotUtf8) {
  auto record = parse_prefix_record(kCondaRecord, "conda.json");
  record.files.push_back("lib/\xff.so");
  EXPECT_THROW((void)prefix_record_json(record), std::exception);
}

TEST(PrefixRecord, ChannelCarriesTheSubdirAsCondaWritesIt) {
  specs::PackageRecord package;
  package.name = "zlib";
  package.subdir = "linux-64";
  package.channel = "https://conda.anaconda.org/conda-forge";
  package.url = "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3-0.conda";
  EXPECT_EQ(conda_meta_channel(package), "https://conda.anaconda.org/conda-forge/linux-64");
  package.channel = "https://conda.anaconda.org/conda-forge/linux-64/";
  EXPECT_EQ(conda_meta_channel(package), "https://conda.anaconda.org/conda-forge/linux-64");
  package.channel = "conda-forge";  // a name: the URL says where it came from
  EXPECT_EQ(conda_meta_channel(package), "https://conda.anaconda.org/conda-forge/linux-64");
}

TEST(PrefixRecord, RefusesDamagedRecords) {
  EXPECT_THROW(parse_prefix_record("{", "x.json"), PrefixError);
  EXPECT_THROW(parse_prefix_record(R"({"name": "x"})", "x.json"), PrefixError);
}

TEST(PrefixRecords, ReadsEveryRecordAndReportsTheDamagedOnes) {
  testing::TempDirectory prefix;
  std::filesystem::create_directories(prefix / "conda-meta");
  std::ofstream(prefix / "conda-meta/somepackage-1.0-0.json") << kCondaRecord;
  std::ofstream(prefix / "conda-meta/tqdm-4.66.4-pyhd8ed1ab_0.json") << kMicromambaRecord;
  std::ofstream(prefix / "conda-meta/broken-1-0.json") << "{ not json";
  std::ofstream(prefix / "conda-meta/history") << "";
  std::ofstream(prefix / "conda-meta/pinned") << "numpy 1.26.*\n";
  const auto installed = read_prefix_records(prefix.path());
  ASSERT_EQ(installed.records.size(), 2u);
  EXPECT_EQ(installed.records[0].package.name, "somepackage");
  EXPECT_EQ(installed.records[1].package.name, "tqdm");
  ASSERT_EQ(installed.problems.size(), 1u);
  EXPECT_NE(installed.problems[0].find("broken-1-0.json"), std::string::npos);
  EXPECT_TRUE(read_prefix_records(prefix / "missing").records.empty());
}

}  // namespace
}  // namespace gpuenv::prefix
