// --offline: the cache alone answers, and a subdir never downloaded is a
// clear error naming it.
#include <gtest/gtest.h>

#include "fetch_fixture.hpp"

namespace gpuenv::testing {
namespace {

using repodata::FetchErrorKind;
using repodata::RepodataOrigin;

using FetchOffline = FetchTest;

TEST_F(FetchOffline, UsesTheCachedCopyWithoutTouchingTheNetwork) {
  const std::string json = sample_repodata("linux-64", 10);
  publish("ch", "linux-64", json);
  const std::string url = subdir_url("ch", "linux-64");
  ASSERT_TRUE(fetch(url));
  server().clear();

  auto options = this->options();
  options.offline = true;
  const auto result = fetch(url, options);
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(result->origin, RepodataOrigin::cache);
  EXPECT_EQ(result->source_url, url + "repodata.json.zst");
  EXPECT_EQ(slurp(result->json_path), json);
  EXPECT_TRUE(server().requests().empty());
}

TEST_F(FetchOffline, SubdirNeverDownloadedIsAnErrorNamingIt) {
  const std::string url = subdir_url("conda-forge", "linux-64");
  auto options = this->options();
  options.offline = true;
  const auto result = fetch(url, options, "conda-forge");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::not_cached);
  const std::string& message = result.error().message;
  EXPECT_NE(message.find(url + "repodata.json (channel conda-forge) offline"), std::string::npos)
      << message;
  EXPECT_NE(message.find(cache_dir().string()), std::string::npos) << message;
  EXPECT_NE(message.find("without --offline"), std::string::npos) << message;
  EXPECT_TRUE(server().requests().empty());
}

TEST_F(FetchOffline, CachedJsonWithoutItsStateIsStillUsed) {
  // Nothing but a checked download is ever renamed into place, so the JSON
  // is sound even when its state file was lost.
  const std::string json = sample_repodata("noarch", 4);
  publish("ch", "noarch", json);
  const std::string url = subdir_url("ch", "noarch");
  ASSERT_TRUE(fetch(url));
  std::filesystem::remove(repodata::RepodataCache(cache_dir()).state_path(url));
  auto options = this->options();
  options.offline = true;
  const auto result = fetch(url, options);
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(slurp(result->json_path), json);
}

TEST_F(FetchOffline, MixesCachedAndMissingSubdirs) {
  publish("ch", "linux-64", sample_repodata("linux-64", 4));
  ASSERT_TRUE(fetch(subdir_url("ch", "linux-64")));
  auto options = this->options();
  options.offline = true;
  const auto results = repodata::fetch_repodata(
      {{subdir_url("ch", "linux-64"), "ch"}, {subdir_url("ch", "noarch"), "ch"}}, options);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0]) << describe(results[0]);
  ASSERT_FALSE(results[1]);
  EXPECT_EQ(results[1].error().url, subdir_url("ch", "noarch") + "repodata.json");
}

}  // namespace
}  // namespace gpuenv::testing
