// The channel index writer against rattler (py-rattler, installed by
// scripts/setup.sh into build/deps/test-tools): a channel gpuenv indexed is
// read by rattler's strict repodata parser, each record equals the record
// rattler builds itself from the same package file (name, version, build,
// build_number, depends, constrains, subdir, license, timestamp, md5,
// sha256, size), and rattler's solver installs from it. Skips, saying why,
// when py-rattler is missing (GPUENV_TEST_PYTHON names another interpreter).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "gpuenv/repodata/channel_index.hpp"
#include "support/package_builder.hpp"
#include "support/rattler_helper.hpp"
#include "support/temp_directory.hpp"
#include "support/test_http_server.hpp"

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

// The shards `gpuenv index` writes (CEP 16), read by rattler's Gateway over
// HTTP with repodata.json removed: rattler finds the same records.
TEST(ChannelIndexRattler, RattlerReadsTheShardsGpuenvWrote) {
  testing::TempDirectory served;
  const fs::path channel = served / "chan";
  PackageBuilder("libstencil", "1.2.0", "h1234567_0").file("lib/libstencil.so", "ELF").write(channel / "linux-64");
  PackageBuilder("libstencil", "1.1.0", "h1234567_0")
      .file("lib/libstencil.so", "old")
      .write(channel / "linux-64", package::ArchiveFormat::tar_bz2);
  PackageBuilder("stencil-cli", "1.2.0", "h7654321_1")
      .depends({"libstencil >=1.2", "stencil-data"})
      .file("bin/stencil", "#!/bin/sh\n")
      .write(channel / "linux-64");
  PackageBuilder("unrelated", "1.0", "0").file("x", "x").write(channel / "linux-64");
  PackageBuilder("stencil-data", "0.1", "0").noarch_generic().file("share/stencil/data", "d").write(channel / "noarch");
  const auto indexed = index_channel(channel);
  ASSERT_TRUE(indexed.has_value()) << indexed.error().message;
  std::map<std::string, json> written;
  for (const char* subdir : {"linux-64", "noarch"}) {
    std::ifstream file(channel / subdir / "repodata.json");
    const json repodata = json::parse(file);
    for (const char* key : {"packages", "packages.conda"}) {
      for (const auto& [filename, record] : repodata[key].items()) written[filename] = record;
    }
    fs::remove(channel / subdir / "repodata.json");
    fs::remove(channel / subdir / "repodata.json.zst");
    ASSERT_TRUE(fs::exists(channel / subdir / "repodata_shards.msgpack.zst"));
  }
  gpuenv::testing::TestHttpServer server(served.path());
  const json request = {{"url", server.url("/chan")}, {"platform", "linux-64"}, {"specs", {"stencil-cli"}}};
  std::string why;
  const auto answer =
      gpuenv::testing::ask_python_helper("tests/unit/repodata/rattler_shard_reader.py", request, false, why);
  if (answer.is_null()) GTEST_SKIP() << "py-rattler not available, differential test skipped: " << why;
  ASSERT_FALSE(answer.contains("error")) << "rattler refused the shards gpuenv wrote: " << answer["error"];
  std::map<std::string, json> read;
  for (const auto& record : answer["records"]) read[record["fn"].get<std::string>()] = record;
  // The closure of stencil-cli: not `unrelated`.
  EXPECT_EQ(read.size(), 4u) << answer.dump(1);
  EXPECT_FALSE(read.contains("unrelated-1.0-0.conda"));
  for (const auto& [filename, record] : read) {
    ASSERT_TRUE(written.contains(filename)) << filename;
    // rattler's JSON leaves out an empty list (constrains); the same as [].
    const auto value = [](const json& of, const char* key) {
      const json found = field_or_null(of, key);
      return found.is_array() && found.empty() ? json(nullptr) : found;
    };
    for (const auto* key : kComparedFields) {
      EXPECT_EQ(value(record, key), value(written[filename], key)) << filename << ": " << key;
    }
  }
  std::size_t shard_requests = 0;
  for (const auto& served_request : server.requests()) {
    if (served_request.path.find("/shards/") != std::string::npos) ++shard_requests;
  }
  EXPECT_EQ(shard_requests, 3u);  // libstencil, stencil-cli, stencil-data
}

}  // namespace
}  // namespace gpuenv::repodata
