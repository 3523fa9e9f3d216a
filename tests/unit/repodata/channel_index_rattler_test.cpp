// The channel index writer against rattler (py-rattler, installed by
// scripts/setup.sh into build/deps/test-tools): a channel gpuenv indexed is
// read by rattler's strict repodata parser, each record equals the record
// rattler builds itself from the same package file (name, version, build,
// build_number, depends, constrains, subdir, license, timestamp, md5,
// sha256, size), and rattler's solver installs from it. Skips, saying why,
// when py-rattler is missing (GPUENV_TEST_PYTHON names another interpreter).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "gpuenv/repodata/channel_index.hpp"
#include "support/package_builder.hpp"
#include "support/rattler_helper.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::repodata {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::PackageBuilder;

const char* const kComparedFields[] = {"name",    "version", "build", "build_number", "depends", "constrains",
                                       "subdir",  "license", "timestamp", "md5",     "sha256",  "size"};

json field_or_null(const json& record, const char* key) { return record.contains(key) ? record[key] : json(nullptr); }

TEST(ChannelIndexRattler, RattlerReadsTheIndexAndSolvesFromIt) {
  testing::TempDirectory channel;
  std::vector<fs::path> archives;
  archives.push_back(PackageBuilder("libstencil", "1.2.0", "h1234567_0")
                         .info_file("info/run_exports.json", R"({"weak": ["libstencil >=1.2.0,<1.3"]})")
                         .file("lib/libstencil.so", "ELF")
                         .write(channel / "linux-64"));
  archives.push_back(PackageBuilder("libstencil", "1.1.0", "h1234567_0").file("lib/libstencil.so", "old").write(
      channel / "linux-64", package::ArchiveFormat::tar_bz2));
  archives.push_back(PackageBuilder("stencil-cli", "1.2.0", "h7654321_1")
                         .depends({"libstencil >=1.2", "stencil-data"})
                         .index_field("constrains", json::array({"cuda-version >=12"}))
                         .index_field("build_number", 1)
                         .file("bin/stencil", "#!/bin/sh\n")
                         .write(channel / "linux-64"));
  archives.push_back(
      PackageBuilder("stencil-data", "0.1", "0").noarch_generic().file("share/stencil/data", "d").write(channel / "noarch"));

  const auto indexed = index_channel(channel.path());
  ASSERT_TRUE(indexed.has_value()) << indexed.error().message;
  ASSERT_TRUE(indexed->problems.empty());

  json request = {{"channel", channel.path().string()},
                  {"subdirs", {"linux-64", "noarch"}},
                  {"archives", json::array()},
                  {"specs", {"stencil-cli"}},
                  {"platform", "linux-64"}};
  for (const auto& archive : archives) request["archives"].push_back(archive.string());
  std::string why;
  const auto answer =
      gpuenv::testing::ask_python_helper("tests/unit/repodata/rattler_channel_reader.py", request, false, why);
  if (answer.is_null()) GTEST_SKIP() << "py-rattler not available, differential test skipped: " << why;
  ASSERT_FALSE(answer.contains("error")) << "rattler refused the channel gpuenv indexed: " << answer["error"];

  // rattler's strict parse of each repodata.json holds every package, and
  // agrees field by field with rattler's own reading of the archive.
  std::map<std::string, json> parsed;
  for (const auto& [subdir, records] : answer["repodata"].items()) {
    for (const auto& record : records) parsed[record["fn"].get<std::string>()] = record;
  }
  ASSERT_EQ(parsed.size(), archives.size()) << answer["repodata"].dump(1);
  for (const auto& archive : archives) {
    const auto filename = archive.filename().string();
    ASSERT_TRUE(parsed.contains(filename)) << filename;
    const auto& from_index = parsed[filename];
    const auto& from_archive = answer["archives"][filename];
    for (const auto* key : kComparedFields) {
      EXPECT_EQ(field_or_null(from_index, key), field_or_null(from_archive, key)) << filename << ": " << key;
    }
  }

  // rattler's solver picks the newest libstencil through the dependency and
  // the noarch package from the same channel, with gpuenv's hashes.
  std::map<std::string, json> solved;
  for (const auto& record : answer["solution"]) solved[record["name"].get<std::string>()] = record;
  ASSERT_EQ(solved.size(), 3u) << answer["solution"].dump(1);
  EXPECT_EQ(solved["libstencil"]["version"], "1.2.0");
  EXPECT_EQ(solved["stencil-cli"]["build"], "h7654321_1");
  EXPECT_EQ(solved["stencil-data"]["subdir"], "noarch");
  EXPECT_EQ(solved["libstencil"]["sha256"], parsed["libstencil-1.2.0-h1234567_0.conda"]["sha256"]);
  EXPECT_NE(solved["stencil-cli"]["url"].get<std::string>().find("/linux-64/stencil-cli-1.2.0-h7654321_1.conda"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuenv::repodata
