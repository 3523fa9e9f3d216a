// The channel index writer (repodata/channel_index.hpp): packages written by
// the package module's writer are indexed into repodata.json,
// repodata.json.zst and run_exports.json in conda-index's shapes;
// re-indexing reuses unchanged archives without reading them; damaged,
// mislabelled and escaping archives are reported and left out.
#include "gpuenv/repodata/channel_index.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "gpuenv/repodata/zstd_stream.hpp"
#include "support/package_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::repodata {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using package::ArchiveFormat;
using testing::PackageBuilder;
using testing::read_file;
using testing::TempDirectory;
using testing::write_text_file;

json read_json(const fs::path& path) { return json::parse(read_file(path)); }

ChannelIndexResult index_ok(const fs::path& channel) {
  auto result = index_channel(channel);
  EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
  return result ? *result : ChannelIndexResult{};
}

const SubdirIndexSummary* summary_of(const ChannelIndexResult& result, const std::string& subdir) {
  for (const auto& each : result.subdirs) {
    if (each.subdir == subdir) return &each;
  }
  return nullptr;
}

std::string problems_text(const ChannelIndexResult& result) {
  std::string text;
  for (const auto& problem : result.problems) text += problem.subdir + "/" + problem.file + ": " + problem.message + "\n";
  return text;
}

// Sets a file's modification time (seconds) so the cache key is under the test's control.
void set_mtime(const fs::path& path, std::int64_t seconds) {
  struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

TEST(ChannelIndex, WritesConformingRepodataForBothFormats) {
  TempDirectory channel;
  const auto conda_file = PackageBuilder("tool", "1.2", "h1_0")
                              .depends({"libdep >=1"})
                              .index_field("arch", "x86_64")
                              .index_field("platform", "linux")
                              .index_field("track_features", "")
                              .file("bin/tool", "#!/bin/sh\n")
                              .write(channel / "linux-64");
  const auto bz2_file = PackageBuilder("libdep", "1.0", "0").file("lib/libdep.so", "x").write(
      channel / "linux-64", ArchiveFormat::tar_bz2);

  const auto result = index_ok(channel.path());
  EXPECT_TRUE(result.problems.empty()) << problems_text(result);
  ASSERT_EQ(result.subdirs.size(), 2u);
  EXPECT_EQ(result.subdirs[0].subdir, "linux-64");
  EXPECT_EQ(result.subdirs[0].packages, 2u);
  EXPECT_EQ(result.subdirs[0].read, 2u);
  EXPECT_EQ(result.subdirs[1].subdir, "noarch");
  EXPECT_EQ(result.packages(), 2u);

  const auto repodata = read_json(channel / "linux-64/repodata.json");
  EXPECT_EQ(repodata["info"], json({{"subdir", "linux-64"}}));
  EXPECT_EQ(repodata["repodata_version"], 1);
  EXPECT_EQ(repodata["removed"], json::array());
  ASSERT_EQ(repodata["packages.conda"].size(), 1u);
  ASSERT_EQ(repodata["packages"].size(), 1u);

  const auto& tool = repodata["packages.conda"]["tool-1.2-h1_0.conda"];
  const auto tool_digests = package::hash_file(conda_file, true, true);
  EXPECT_EQ(tool["name"], "tool");
  EXPECT_EQ(tool["version"], "1.2");
  EXPECT_EQ(tool["build"], "h1_0");
  EXPECT_EQ(tool["build_number"], 0);
  EXPECT_EQ(tool["depends"], json({"libdep >=1"}));
  EXPECT_EQ(tool["subdir"], "linux-64");
  EXPECT_EQ(tool["timestamp"], 1700000000000);
  EXPECT_EQ(tool["license"], "BSD-3-Clause");
  EXPECT_EQ(tool["md5"], tool_digests.md5);
  EXPECT_EQ(tool["sha256"], tool_digests.sha256);
  EXPECT_EQ(tool["size"], fs::file_size(conda_file));
  // conda-index drops these legacy index.json fields; other fields stay.
  EXPECT_FALSE(tool.contains("arch"));
  EXPECT_FALSE(tool.contains("platform"));
  EXPECT_TRUE(tool.contains("track_features"));

  const auto& libdep = repodata["packages"]["libdep-1.0-0.tar.bz2"];
  EXPECT_EQ(libdep["sha256"], package::hash_file(bz2_file, true, false).sha256);
  EXPECT_EQ(libdep["size"], fs::file_size(bz2_file));

  // noarch is written even when empty, as conda-index does.
  const auto noarch = read_json(channel / "noarch/repodata.json");
  EXPECT_EQ(noarch["info"]["subdir"], "noarch");
  EXPECT_EQ(noarch["packages"], json::object());
  EXPECT_EQ(noarch["packages.conda"], json::object());
}

TEST(ChannelIndex, OutputIsCompactSortedAndDeterministic) {
  TempDirectory channel;
  PackageBuilder("b", "1", "0").write(channel / "linux-64");
  PackageBuilder("a", "1", "0").write(channel / "linux-64");
  index_ok(channel.path());
  const auto first = read_file(channel / "linux-64/repodata.json");
  // conda-index's layout: json.dumps(sort_keys=True, separators=(",", ":")).
  EXPECT_EQ(first, read_json(channel / "linux-64/repodata.json").dump());
  EXPECT_EQ(first.find('\n'), std::string::npos);
  EXPECT_LT(first.find("\"a-1-0.conda\""), first.find("\"b-1-0.conda\""));

  // An index from scratch (no cache) writes the same bytes.
  fs::remove_all(channel / "linux-64/.cache");
  const auto again = index_ok(channel.path());
  EXPECT_EQ(read_file(channel / "linux-64/repodata.json"), first);
  EXPECT_FALSE(summary_of(again, "linux-64")->repodata_changed);
}

TEST(ChannelIndex, ZstdCopyHoldsTheSameDocument) {
  TempDirectory channel;
  PackageBuilder("a", "1", "0").write(channel / "linux-64");
  index_ok(channel.path());
  for (const auto* subdir : {"linux-64", "noarch"}) {
    const auto compressed = read_file(channel / subdir / "repodata.json.zst");
    std::string decoded;
    ZstdDecompressor decompressor;
    ASSERT_TRUE(decompressor.feed(compressed, [&](std::string_view bytes) {
      decoded.append(bytes);
      return true;
    }));
    EXPECT_TRUE(decompressor.at_frame_end());
    EXPECT_EQ(decoded, read_file(channel / subdir / "repodata.json"));
  }
}

TEST(ChannelIndex, RunExportsJsonInCondaIndexShape) {
  TempDirectory channel;
  PackageBuilder("stencil", "1.0", "h0_0")
      .info_file("info/run_exports.json", R"({"weak": ["stencil >=1.0,<2"]})")
      .write(channel / "linux-64");
  PackageBuilder("plain", "1.0", "0").write(channel / "linux-64", ArchiveFormat::tar_bz2);
  index_ok(channel.path());
  const auto run_exports = read_json(channel / "linux-64/run_exports.json");
  EXPECT_EQ(run_exports["info"], json({{"subdir", "linux-64"}, {"version", 1}}));
  EXPECT_EQ(run_exports["packages.conda"]["stencil-1.0-h0_0.conda"],
            json({{"run_exports", {{"weak", {"stencil >=1.0,<2"}}}}}));
  EXPECT_EQ(run_exports["packages"]["plain-1.0-0.tar.bz2"], json({{"run_exports", json::object()}}));
  EXPECT_EQ(read_json(channel / "noarch/run_exports.json")["packages.conda"], json::object());
}

TEST(ChannelIndex, UnchangedArchiveIsNotReadAgain) {
  TempDirectory channel;
  const auto file = PackageBuilder("tool", "1.0", "0").write(channel / "linux-64");
  set_mtime(file, 1700000000);
  const auto first = index_ok(channel.path());
  EXPECT_EQ(summary_of(first, "linux-64")->read, 1u);
  const auto before = read_file(channel / "linux-64/repodata.json");

  // Same name, size and mtime but other bytes: a re-read would fail (or
  // change the sha256); the cache must answer without opening the file.
  const auto size = fs::file_size(file);
  write_text_file(file, std::string(size, 'x'));
  set_mtime(file, 1700000000);
  const auto second = index_ok(channel.path());
  EXPECT_TRUE(second.problems.empty()) << problems_text(second);
  EXPECT_EQ(summary_of(second, "linux-64")->read, 0u);
  EXPECT_EQ(summary_of(second, "linux-64")->reused, 1u);
  EXPECT_FALSE(summary_of(second, "linux-64")->repodata_changed);
  EXPECT_EQ(read_file(channel / "linux-64/repodata.json"), before);

  // A new mtime makes it read again: now it is garbage, and reported.
  set_mtime(file, 1700000100);
  const auto third = index_ok(channel.path());
  EXPECT_EQ(summary_of(third, "linux-64")->read, 0u);
  ASSERT_EQ(third.problems.size(), 1u) << problems_text(third);
  EXPECT_EQ(third.problems[0].file, "tool-1.0-0.conda");
  EXPECT_EQ(read_json(channel / "linux-64/repodata.json")["packages.conda"], json::object());
}

TEST(ChannelIndex, ReplacedArchiveIsReadAgain) {
  TempDirectory channel;
  const auto file = PackageBuilder("tool", "1.0", "0").file("a", "1").write(channel / "linux-64");
  set_mtime(file, 1700000000);
  index_ok(channel.path());
  PackageBuilder("tool", "1.0", "0").file("a", "a longer content").depends({"x"}).write(channel / "linux-64");
  set_mtime(file, 1700000000);  // same mtime, other size
  const auto result = index_ok(channel.path());
  EXPECT_EQ(summary_of(result, "linux-64")->read, 1u);
  const auto record = read_json(channel / "linux-64/repodata.json")["packages.conda"]["tool-1.0-0.conda"];
  EXPECT_EQ(record["depends"], json({"x"}));
  EXPECT_EQ(record["sha256"], package::hash_file(file, true, false).sha256);
}

TEST(ChannelIndex, RemovedArchiveLeavesTheRepodata) {
  TempDirectory channel;
  const auto gone = PackageBuilder("gone", "1.0", "0").write(channel / "linux-64");
  PackageBuilder("kept", "1.0", "0").write(channel / "linux-64");
  index_ok(channel.path());
  fs::remove(gone);
  const auto result = index_ok(channel.path());
  const auto* linux = summary_of(result, "linux-64");
  EXPECT_EQ(linux->removed, 1u);
  EXPECT_EQ(linux->reused, 1u);
  EXPECT_EQ(linux->packages, 1u);
  EXPECT_TRUE(linux->repodata_changed);
  const auto repodata = read_json(channel / "linux-64/repodata.json");
  EXPECT_FALSE(repodata["packages.conda"].contains("gone-1.0-0.conda"));
  EXPECT_TRUE(repodata["packages.conda"].contains("kept-1.0-0.conda"));
  EXPECT_FALSE(read_json(channel / "linux-64/run_exports.json")["packages.conda"].contains("gone-1.0-0.conda"));
}

TEST(ChannelIndex, DamagedArchivesAreReportedAndLeftOut) {
  TempDirectory channel;
  PackageBuilder("good", "1.0", "0").write(channel / "linux-64");
  write_text_file(channel / "linux-64/garbage-1.0-0.conda", "not a zip at all");
  write_text_file(channel / "linux-64/garbage-1.0-0.tar.bz2", "BZh91AY&SY truncated");
  // A package without info/index.json.
  package::PackageMember only_file;
  only_file.path = "bin/x";
  only_file.content = "x";
  package::write_package_members(channel / "linux-64/noindex-1.0-0.conda", {only_file}, {.compression_level = 1});
  // index.json that is not JSON, and one that is not an object.
  for (const auto& [file, text] : {std::pair{"badjson-1.0-0.conda", "{\"name\": "}, std::pair{"array-1.0-0.conda", "[1]"}}) {
    package::PackageMember index;
    index.path = "info/index.json";
    index.content = text;
    package::write_package_members(channel / "linux-64" / file, {index}, {.compression_level = 1});
  }

  const auto result = index_ok(channel.path());
  ASSERT_EQ(result.problems.size(), 5u) << problems_text(result);
  for (const auto& problem : result.problems) {
    EXPECT_EQ(problem.subdir, "linux-64");
    // Each message names the file.
    EXPECT_NE(problem.message.find(problem.file), std::string::npos) << problem.message;
  }
  const auto repodata = read_json(channel / "linux-64/repodata.json");
  EXPECT_EQ(repodata["packages.conda"].size(), 1u);
  EXPECT_TRUE(repodata["packages.conda"].contains("good-1.0-0.conda"));
  EXPECT_EQ(repodata["packages"], json::object());
  EXPECT_EQ(summary_of(result, "linux-64")->packages, 1u);
}

TEST(ChannelIndex, MislabelledPackagesAreReportedAndLeftOut) {
  TempDirectory channel;
  // Built for osx-64 but put in linux-64.
  PackageBuilder("elsewhere", "1.0", "0").subdir("osx-64").write(channel / "linux-64");
  // A file name that does not say name-version-build.
  const auto renamed = PackageBuilder("real", "1.0", "0").write(channel / "linux-64");
  fs::rename(renamed, channel / "linux-64/fake-2.0-0.conda");
  // A version no conda reads, and a depends that is not a list of strings.
  PackageBuilder("badversion", "1..0", "0").write(channel / "linux-64");
  PackageBuilder("baddepends", "1.0", "0").index_field("depends", json{{"x", 1}}).write(channel / "linux-64");

  const auto result = index_ok(channel.path());
  ASSERT_EQ(result.problems.size(), 4u) << problems_text(result);
  const auto text = problems_text(result);
  EXPECT_NE(text.find("elsewhere-1.0-0.conda: "), std::string::npos) << text;
  EXPECT_NE(text.find("osx-64"), std::string::npos) << text;
  EXPECT_NE(text.find("fake-2.0-0.conda: "), std::string::npos) << text;
  EXPECT_NE(text.find("real-1.0-0"), std::string::npos) << text;
  EXPECT_EQ(read_json(channel / "linux-64/repodata.json")["packages.conda"], json::object());
}

TEST(ChannelIndex, OversizedIndexJsonIsRefused) {
  TempDirectory channel;
  PackageBuilder("longfield", "1.0", "0").index_field("summary", std::string(100 * 1024, 's')).write(channel / "linux-64");
  json many = json::array();
  for (int i = 0; i < 40000; ++i) many.push_back("d" + std::to_string(i));
  PackageBuilder("huge", "1.0", "0").index_field("depends", many).write(channel / "linux-64");
  json nested = json::array();
  for (int i = 0; i < 100; ++i) nested = json::array({nested});
  PackageBuilder("deep", "1.0", "0").index_field("extra", nested).write(channel / "linux-64");

  const auto result = index_ok(channel.path());
  ASSERT_EQ(result.problems.size(), 3u) << problems_text(result);
  EXPECT_EQ(read_json(channel / "linux-64/repodata.json")["packages.conda"], json::object());
}

TEST(ChannelIndex, SymlinkOutOfTheChannelIsNotFollowed) {
  TempDirectory outside;
  TempDirectory channel;
  const auto target = PackageBuilder("escape", "1.0", "0").write(outside.path());
  fs::create_directories(channel / "linux-64");
  fs::create_symlink(target, channel / "linux-64/escape-1.0-0.conda");
  // A link to an archive elsewhere in the channel (a hidden folder: not a
  // subdir) is an ordinary package.
  const auto pooled = PackageBuilder("pooled", "1.0", "0").write(channel / ".pool");
  fs::create_symlink("../.pool/pooled-1.0-0.conda", channel / "linux-64/pooled-1.0-0.conda");

  const auto result = index_ok(channel.path());
  ASSERT_EQ(result.problems.size(), 1u) << problems_text(result);
  EXPECT_EQ(result.problems[0].file, "escape-1.0-0.conda");
  EXPECT_NE(result.problems[0].message.find("outside"), std::string::npos) << result.problems[0].message;
  const auto packages = read_json(channel / "linux-64/repodata.json")["packages.conda"];
  EXPECT_FALSE(packages.contains("escape-1.0-0.conda"));
  ASSERT_TRUE(packages.contains("pooled-1.0-0.conda"));
  EXPECT_EQ(packages["pooled-1.0-0.conda"]["size"], fs::file_size(pooled));
}

TEST(ChannelIndex, SubdirLinkedOutOfTheChannelIsNotWrittenInto) {
  TempDirectory outside;
  TempDirectory channel;
  PackageBuilder("tool", "1.0", "0").write(outside / "linux-64");
  fs::create_symlink(outside / "linux-64", channel / "linux-64");
  const auto result = index_ok(channel.path());
  ASSERT_EQ(result.problems.size(), 1u) << problems_text(result);
  EXPECT_EQ(result.problems[0].subdir, "linux-64");
  EXPECT_NE(result.problems[0].message.find("outside the channel"), std::string::npos) << result.problems[0].message;
  EXPECT_EQ(summary_of(result, "linux-64"), nullptr);
  EXPECT_FALSE(fs::exists(outside / "linux-64/repodata.json"));
  EXPECT_FALSE(fs::exists(outside / "linux-64/.cache"));
}

TEST(ChannelIndex, SubdirDiscovery) {
  TempDirectory channel;
  PackageBuilder("generic", "1.0", "0").noarch_generic().write(channel / "noarch");
  fs::create_directories(channel / "osx-arm64");                    // known, empty: indexed, as conda-index does
  PackageBuilder("stray", "1.0", "0").write(channel / "not-a-subdir");  // unknown, with packages: reported
  fs::create_directories(channel / "docs");                         // unknown, empty: ignored
  const auto result = index_ok(channel.path());
  ASSERT_EQ(result.subdirs.size(), 2u);
  EXPECT_EQ(result.subdirs[0].subdir, "noarch");
  EXPECT_EQ(result.subdirs[0].packages, 1u);
  EXPECT_EQ(result.subdirs[1].subdir, "osx-arm64");
  EXPECT_TRUE(fs::exists(channel / "osx-arm64/repodata.json"));
  ASSERT_EQ(result.problems.size(), 1u) << problems_text(result);
  EXPECT_EQ(result.problems[0].subdir, "not-a-subdir");
  EXPECT_FALSE(fs::exists(channel / "not-a-subdir/repodata.json"));
  EXPECT_FALSE(fs::exists(channel / "docs/repodata.json"));
}

TEST(ChannelIndex, CorruptCacheIsRebuiltNotTrusted) {
  TempDirectory channel;
  PackageBuilder("tool", "1.0", "0").write(channel / "linux-64");
  index_ok(channel.path());
  const auto cache = channel / "linux-64/.cache/gpuenv-index.json";
  ASSERT_TRUE(fs::exists(cache));
  const auto expected = read_file(channel / "linux-64/repodata.json");
  for (const std::string damaged : {"{not json", R"({"version": 1, "packages": {"tool-1.0-0.conda": 7}})",
                                    R"({"version": 1, "packages": []})"}) {
    write_text_file(cache, damaged);
    const auto result = index_ok(channel.path());
    EXPECT_EQ(summary_of(result, "linux-64")->read, 1u) << damaged;
    EXPECT_EQ(read_file(channel / "linux-64/repodata.json"), expected) << damaged;
  }
}

// Real packages (defaults' zlib 1.2.11 for four platforms, both formats)
// next to the repodata their channel published: gpuenv's records must say
// the same about each file.
TEST(ChannelIndex, RealPackagesGetThePublishedRecords) {
  const auto published = testing::testdata_dir() / "channels/conda-format-repo";
  TempDirectory channel;
  std::size_t copied = 0;
  for (const auto& entry : fs::recursive_directory_iterator(published)) {
    const auto name = entry.path().filename().string();
    if (!name.ends_with(".conda") && !name.ends_with(".tar.bz2")) continue;
    const auto subdir = entry.path().parent_path().filename().string();
    fs::create_directories(channel / subdir);
    fs::copy_file(entry.path(), channel / subdir / name);
    ++copied;
  }
  ASSERT_GE(copied, 8u);
  const auto result = index_ok(channel.path());
  EXPECT_TRUE(result.problems.empty()) << problems_text(result);
  EXPECT_EQ(result.packages(), copied);
  std::size_t compared = 0;
  for (const auto& summary : result.subdirs) {
    if (!fs::exists(published / summary.subdir / "repodata.json")) continue;
    const auto expected = read_json(published / summary.subdir / "repodata.json");
    const auto written = read_json(channel / summary.subdir / "repodata.json");
    for (const auto* group : {"packages", "packages.conda"}) {
      for (const auto& [filename, record] : written[group].items()) {
        ASSERT_TRUE(expected[group].contains(filename)) << summary.subdir << "/" << filename;
        const auto& reference = expected[group][filename];
        for (const auto* key : {"name", "version", "build", "build_number", "depends", "license", "license_family",
                                "md5", "sha256", "size", "subdir", "timestamp"}) {
          EXPECT_EQ(record.value(key, json()), reference.value(key, json())) << filename << ": " << key;
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, copied);
}

// conda-build's index fixtures: its corrupt archives are refused, its real
// run_exports packages land in run_exports.json.
TEST(ChannelIndex, CondaBuildIndexFixtures) {
  const auto fixtures = testing::testdata_dir() / "channels/conda-build-index_data";
  TempDirectory channel;
  fs::copy(fixtures / "corrupt", channel.path(), fs::copy_options::recursive);
  fs::copy(fixtures / "packages", channel.path(), fs::copy_options::recursive | fs::copy_options::skip_existing);
  const auto result = index_ok(channel.path());
  ASSERT_EQ(result.problems.size(), 2u) << problems_text(result);
  EXPECT_EQ(result.problems[0].subdir, "noarch");
  EXPECT_EQ(summary_of(result, "noarch")->packages, 2u);
  EXPECT_EQ(summary_of(result, "osx-64")->packages, 2u);
  const auto run_exports = read_json(channel / "noarch/run_exports.json")["packages"];
  ASSERT_TRUE(run_exports.contains("run_exports_versions-1.0-he35c369_0.tar.bz2")) << run_exports.dump();
  EXPECT_NE(run_exports["run_exports_versions-1.0-he35c369_0.tar.bz2"]["run_exports"], json::object());
}

TEST(ChannelIndex, MissingDirectoryIsAnError) {
  TempDirectory scratch;
  const auto result = index_channel(scratch / "nowhere");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().kind, ChannelIndexError::Kind::not_a_channel);
  EXPECT_NE(result.error().message.find("nowhere"), std::string::npos);
}

TEST(ChannelIndex, ASubdirIsNotAChannel) {
  TempDirectory channel;
  PackageBuilder("tool", "1.0", "0").write(channel / "linux-64");
  const auto result = index_channel(channel / "linux-64");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().kind, ChannelIndexError::Kind::not_a_channel);
  EXPECT_NE(result.error().message.find(channel.path().string()), std::string::npos) << result.error().message;
  EXPECT_FALSE(fs::exists(channel / "linux-64/noarch"));
}

TEST(ChannelIndex, NoTemporaryFilesLeftBehind) {
  TempDirectory channel;
  PackageBuilder("tool", "1.0", "0").write(channel / "linux-64");
  index_ok(channel.path());
  index_ok(channel.path());
  for (const auto& entry : fs::recursive_directory_iterator(channel.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace gpuenv::repodata
