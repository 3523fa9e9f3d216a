// paths.json, the legacy info/files + has_prefix + no_link, link.json and
// index.json readers.
#include <gtest/gtest.h>

#include "gpuenv/package/link_json.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/package/record_json.hpp"

namespace gpuenv::package {
namespace {

TEST(PackagePathsJson, ReadsEveryField) {
  const auto paths = parse_paths_json(R"({
    "paths": [
      {"_path": "bin/tool", "path_type": "hardlink", "sha256": "aa", "size_in_bytes": 12,
       "prefix_placeholder": "/opt/ph", "file_mode": "binary", "no_link": true},
      {"_path": "lib/link", "path_type": "softlink", "sha256": "bb", "size_in_bytes": 0},
      {"_path": "var/empty", "path_type": "directory"},
      {"_path": "./share/x"}
    ],
    "paths_version": 1})",
                                      "paths.json");
  ASSERT_EQ(paths.paths.size(), 4u);
  const auto& tool = paths.paths[0];
  EXPECT_EQ(tool.path, "bin/tool");
  EXPECT_EQ(tool.path_type, PathType::hardlink);
  EXPECT_EQ(tool.file_mode, FileMode::binary);
  EXPECT_EQ(tool.prefix_placeholder, "/opt/ph");
  EXPECT_TRUE(tool.no_link);
  EXPECT_EQ(tool.sha256, "aa");
  EXPECT_EQ(tool.size_in_bytes, 12u);
  EXPECT_EQ(paths.paths[1].path_type, PathType::softlink);
  EXPECT_EQ(paths.paths[2].path_type, PathType::directory);
  // Defaults (CEP 34): hardlink, text, no placeholder, linkable.
  EXPECT_EQ(paths.paths[3].path, "share/x");
  EXPECT_EQ(paths.paths[3].path_type, PathType::hardlink);
  EXPECT_EQ(paths.paths[3].file_mode, FileMode::text);
  EXPECT_FALSE(paths.paths[3].has_prefix());
}

TEST(PackagePathsJson, RefusesPathsLeavingThePrefix) {
  for (const auto* bad : {R"({"paths": [{"_path": "../etc/passwd"}]})",
                          R"({"paths": [{"_path": "/etc/passwd"}]})",
                          R"({"paths": [{"_path": "lib/../../x"}]})",
                          R"({"paths": [{"_path": ""}]})"}) {
    EXPECT_THROW(parse_paths_json(bad, "paths.json"), PackageError) << bad;
  }
}

TEST(PackagePathsJson, RefusesDamagedDocuments) {
  EXPECT_THROW(parse_paths_json("{", "x"), PackageError);
  EXPECT_THROW(parse_paths_json("{}", "x"), PackageError);
  EXPECT_THROW(parse_paths_json(R"({"paths": [{"_path": "a", "path_type": "fifo"}]})", "x"),
               PackageError);
}

TEST(PackagePathsJson, RoundTripsThroughItsText) {
  PathsJson paths;
  PathEntry entry;
  entry.path = "bin/x";
  entry.sha256 = "cc";
  entry.size_in_bytes = 3;
  entry.prefix_placeholder = "/opt/ph";
  entry.file_mode = FileMode::binary;
  paths.paths.push_back(entry);
  EXPECT_EQ(parse_paths_json(paths_json_text(paths), "x").paths, paths.paths);
}

// gpuenv build's packages are compared with rattler-build's byte for byte,
// so the keys come in its order (conda-build sorts them; readers do not care).
TEST(PackagePathsJson, WritesKeysInRattlerBuildsOrder) {
  PathsJson paths;
  PathEntry entry;
  entry.path = "bin/x";
  entry.sha256 = "cc";
  entry.size_in_bytes = 3;
  entry.prefix_placeholder = "/opt/ph";
  entry.file_mode = FileMode::text;
  paths.paths.push_back(entry);
  EXPECT_EQ(paths_json_text(paths),
            "{\n  \"paths\": [\n    {\n      \"_path\": \"bin/x\",\n      \"path_type\": \"hardlink\",\n"
            "      \"file_mode\": \"text\",\n      \"prefix_placeholder\": \"/opt/ph\",\n      \"sha256\": \"cc\",\n"
            "      \"size_in_bytes\": 3\n    }\n  ],\n  \"paths_version\": 1\n}");
}

TEST(PackageLegacyFiles, ReadsHasPrefixInBothForms) {
  const auto paths = paths_json_from_legacy_files(
      "bin/a\nbin/b\n./lib/c\nshare/d e\n",
      "bin/a\n/opt/ph binary bin/b\n/opt/ph text \"share/d e\"\n", "lib/c\n", "pkg");
  ASSERT_EQ(paths.paths.size(), 4u);
  EXPECT_TRUE(paths.from_legacy_files);
  EXPECT_EQ(paths.paths[0].prefix_placeholder, kLegacyPrefixPlaceholder);
  EXPECT_EQ(paths.paths[0].file_mode, FileMode::text);
  EXPECT_EQ(paths.paths[1].prefix_placeholder, "/opt/ph");
  EXPECT_EQ(paths.paths[1].file_mode, FileMode::binary);
  EXPECT_EQ(paths.paths[2].path, "lib/c");
  EXPECT_TRUE(paths.paths[2].no_link);
  EXPECT_FALSE(paths.paths[2].has_prefix());
  EXPECT_EQ(paths.paths[3].path, "share/d e");
  EXPECT_EQ(paths.paths[3].prefix_placeholder, "/opt/ph");
}

TEST(PackageLegacyFiles, RefusesAnUnknownMode) {
  EXPECT_THROW(paths_json_from_legacy_files("a\n", "/opt/ph octal a\n", "", "pkg"), PackageError);
}

TEST(PackageLinkJson, ReadsEntryPoints) {
  const auto link = parse_link_json(R"({"noarch": {"type": "python", "entry_points": [
      "isympy = isympy:main", "tool=pkg.cli:run.main", "extra = m:f [fancy]"]},
      "package_metadata_version": 1})",
                                    "link.json");
  EXPECT_EQ(link.noarch, specs::NoarchType::python);
  ASSERT_EQ(link.entry_points.size(), 3u);
  EXPECT_EQ(link.entry_points[0], (EntryPoint{"isympy", "isympy", "main"}));
  EXPECT_EQ(link.entry_points[1], (EntryPoint{"tool", "pkg.cli", "run.main"}));
  EXPECT_EQ(link.entry_points[2], (EntryPoint{"extra", "m", "f"}));
  EXPECT_EQ(parse_link_json(link_json_text(link), "x").entry_points, link.entry_points);
}

TEST(PackageLinkJson, RefusesEntryPointsThatAreNotPlainCommands) {
  EXPECT_THROW(parse_entry_point("../../bin/evil = m:f", "x"), PackageError);
  EXPECT_THROW(parse_entry_point("tool", "x"), PackageError);
  EXPECT_THROW(parse_entry_point("tool = module", "x"), PackageError);
}

TEST(PackageRecordJson, ReadsOldAndOddIndexFiles) {
  // Shapes met in real packages and repodata over the years.
  const auto record = parse_record_json(R"({
      "name": "nano", "version": "2.4.1", "build": "0", "build_number": "3",
      "arch": null, "platform": null, "noarch": true, "license": null,
      "track_features": "mkl,debug", "features": ["a b"], "timestamp": 1562343890,
      "size": 1.5e3, "depends": "python"})",
                                        "index.json");
  EXPECT_EQ(record.name, "nano");
  EXPECT_EQ(record.build_number, 3u);
  EXPECT_EQ(record.noarch, specs::NoarchType::generic);
  EXPECT_EQ(record.track_features, (std::vector<std::string>{"debug", "mkl"}));
  EXPECT_EQ(record.features, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(record.timestamp, 1562343890000u);  // seconds become milliseconds
  EXPECT_EQ(record.size, 1500u);
  EXPECT_EQ(record.depends, std::vector<std::string>{"python"});
  EXPECT_TRUE(record.license.empty());
}

TEST(PackageRecordJson, RefusesRecordsWithoutIdentity) {
  EXPECT_THROW(parse_record_json(R"({"name": "x", "version": "1"})", "index.json"), PackageError);
  EXPECT_THROW(parse_record_json("[]", "index.json"), PackageError);
  EXPECT_THROW(parse_record_json("{", "index.json"), PackageError);
}

TEST(PackageRecordJson, WritesWhatItReads) {
  auto record = parse_record_json(R"({"name": "x", "version": "1.0", "build": "py_0",
      "build_number": 0, "depends": ["python"], "noarch": "python", "sha256": "ab", "md5": "cd",
      "size": 10, "subdir": "noarch", "timestamp": 1700000000000, "track_features": "f",
      "python_site_packages_path": "lib/python3.13t/site-packages", "license": "MIT"})",
                                  "index.json");
  const auto again = record_from_json(record_to_json(record), "again");
  EXPECT_EQ(again, record);
}

}  // namespace
}  // namespace gpuenv::package
