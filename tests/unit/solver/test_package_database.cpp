// Loading repodata into the database: search results, CEP 15 package URLs,
// and the .solv cache (used when current, ignored when the JSON changed).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <thread>

#include "solver_fixture.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::solver {
namespace {

using testing::channel_subdir;
using testing::TempDirectory;
using testing::testdata_dir;
using testing::write_text_file;

std::vector<std::string> described(const std::vector<specs::PackageRecord>& records) {
  std::vector<std::string> result;
  for (const auto& r : records) {
    result.push_back(fmt::format("{} {} {} {} {} {} {} {}", r.name, r.version, r.build, r.build_number, r.fn, r.url,
                                 r.sha256, fmt::join(r.depends, ",")));
  }
  return result;
}

TEST(PackageDatabase, SearchListsMatchesNewestFirst) {
  PackageDatabase database;
  testing::add_testdata(database, "channels/conda-test-recipes/noarch/repodata.json", "file:///recipes", "noarch");
  const auto records = database.search(specs::MatchSpec::parse("dependen*"));
  std::vector<std::string> dists;
  for (const auto& record : records) dists.push_back(record.dist_str());
  EXPECT_EQ(dists, (std::vector<std::string>{"dependency-2.0-0", "dependency-1.0-0", "dependent-2.0-0",
                                             "dependent-1.0-0"}));
  EXPECT_EQ(records[0].depends, std::vector<std::string>{});
  EXPECT_EQ(records[2].depends, std::vector<std::string>{"dependency >=2.0,<3.0a0"});
  EXPECT_TRUE(database.search(specs::MatchSpec::parse("dependency>=3")).empty());
  EXPECT_EQ(database.channel_record_count(), 32u);
}

TEST(PackageDatabase, PackageUrlsFollowBaseUrl) {
  PackageDatabase database;
  // info.base_url is absolute there: packages live on another host.
  testing::add_testdata(database, "repodata/mamba-tests/conda-forge-repodata-version-2.json",
                        "https://mirror.example/conda-forge", "linux-64");
  const auto records = database.search(specs::MatchSpec::parse("bzip2"));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].url, "https://repo.anaconda.com/repo/main/linux-64/bzip2-1.0.8-hd590300_5.conda");
  EXPECT_EQ(records[0].channel, "https://mirror.example/conda-forge");
  // Without base_url they live beside the repodata.
  PackageDatabase plain;
  testing::add_testdata(plain, "repodata/mamba-tests/conda-forge-repodata-version-2-missing-base_url.json",
                        "https://mirror.example/conda-forge", "linux-64");
  const auto plain_records = plain.search(specs::MatchSpec::parse("bzip2"));
  ASSERT_EQ(plain_records.size(), 1u);
  EXPECT_EQ(plain_records[0].url, "https://mirror.example/conda-forge/linux-64/bzip2-1.0.8-hd590300_5.conda");
}

TEST(PackageDatabase, TheSolvCacheServesAnUnchangedRepodataWithoutParsingIt) {
  TempDirectory cache;
  LoadOptions options;
  options.solv_cache_dir = cache / "solv";
  const auto json = testdata_dir() / "repodata/conda-tests/r_linux-64.json";
  const auto source = channel_subdir("https://repo.anaconda.com/pkgs/r", "linux-64");

  PackageDatabase cold;
  const auto first = cold.add_repodata(json, source, options);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->from_solv_cache);
  EXPECT_TRUE(first->solv_cache_write_error.empty()) << first->solv_cache_write_error;
  EXPECT_EQ(first->records, 4211u);

  PackageDatabase warm;
  const auto second = warm.add_repodata(json, source, options);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE(second->from_solv_cache);
  EXPECT_EQ(second->records, 4211u);
  // The same records, to the last field.
  for (const char* spec : {"r-base", "_r-mutex", "rpy2>=2.8", "r-essentials"}) {
    EXPECT_EQ(described(cold.search(specs::MatchSpec::parse(spec))),
              described(warm.search(specs::MatchSpec::parse(spec))))
        << spec;
  }
  const auto solved_cold = solve(cold, testing::install({"_r-mutex"}));
  const auto solved_warm = solve(warm, testing::install({"_r-mutex"}));
  ASSERT_TRUE(solved_cold && solved_warm);
  EXPECT_EQ(testing::dists(solved_cold->link), testing::dists(solved_warm->link));
}

TEST(PackageDatabase, AChangedRepodataIsParsedAgain) {
  TempDirectory dir;
  LoadOptions options;
  options.solv_cache_dir = dir / "solv";
  const auto json = dir / "chan/noarch/repodata.json";
  const auto source = channel_subdir("file://" + (dir / "chan").string(), "noarch");
  write_text_file(json, R"({"packages": {"a-1.0-0.tar.bz2": {"name": "a", "version": "1.0", "build": "0"}}})");
  {
    PackageDatabase database;
    ASSERT_TRUE(database.add_repodata(json, source, options));
  }
  // A new revision (different size and modification time).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write_text_file(json, R"({"packages": {"a-2.0-0.tar.bz2": {"name": "a", "version": "2.0", "build": "0"},
                                          "a-1.0-0.tar.bz2": {"name": "a", "version": "1.0", "build": "0"}}})");
  PackageDatabase database;
  const auto loaded = database.add_repodata(json, source, options);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(loaded->from_solv_cache);
  EXPECT_EQ(loaded->records, 2u);
  EXPECT_EQ(database.search(specs::MatchSpec::parse("a")).front().version, "2.0");
  // Only the current revision's cache is kept.
  std::size_t caches = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "solv")) caches += entry.path().extension() == ".solv";
  EXPECT_EQ(caches, 1u);
}

TEST(PackageDatabase, AnUnreadableCacheFileFallsBackToTheJson) {
  TempDirectory dir;
  LoadOptions options;
  options.solv_cache_dir = dir / "solv";
  const auto json = testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json";
  const auto source = channel_subdir("file:///recipes", "noarch");
  {
    PackageDatabase database;
    ASSERT_TRUE(database.add_repodata(json, source, options));
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir / "solv")) {
    write_text_file(entry.path(), "not a solv file");
  }
  PackageDatabase database;
  const auto loaded = database.add_repodata(json, source, options);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_FALSE(loaded->from_solv_cache);
  EXPECT_NE(loaded->solv_cache_note.find("unreadable"), std::string::npos) << loaded->solv_cache_note;
  EXPECT_EQ(loaded->records, 32u);
}

TEST(PackageDatabase, BadJsonIsAnErrorNamingTheSource) {
  TempDirectory dir;
  write_text_file(dir / "repodata.json", "{\"packages\": {\"a-1-0.tar.bz2\": {\"name\": \"a\"");
  PackageDatabase database;
  LoadOptions options;
  options.source_label = "https://example.org/broken/noarch/repodata.json";
  const auto loaded = database.add_repodata(dir / "repodata.json", channel_subdir("https://example.org/broken", "noarch"),
                                            options);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("https://example.org/broken/noarch/repodata.json"), std::string::npos);
  EXPECT_NE(loaded.error().message.find("at byte"), std::string::npos);
  EXPECT_EQ(database.channel_record_count(), 0u);
}

}  // namespace
}  // namespace gpuenv::solver
