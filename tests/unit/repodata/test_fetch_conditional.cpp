// Revalidating a cached copy: conditional requests, 304 Not Modified, TTL
// and Cache-Control freshness, and states that no longer match their file.
#include <gtest/gtest.h>

#include <thread>

#include "fetch_fixture.hpp"

namespace gpuenv::testing {
namespace {

using repodata::RepodataOrigin;

using FetchConditional = FetchTest;

TEST_F(FetchConditional, NotModifiedKeepsTheCachedFileAndRefreshesTheState) {
  const std::string json = sample_repodata("linux-64", 30);
  publish("conda-forge", "linux-64", json);
  const std::string url = subdir_url("conda-forge", "linux-64");
  const auto first = fetch(url);
  ASSERT_TRUE(first) << describe(first);
  const auto state_before = state_file(url);
  const auto stamp_before = repodata::stamp_of(first->json_path);
  server().clear();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let refresh_ns move

  const auto second = fetch(url);
  ASSERT_TRUE(second) << describe(second);
  EXPECT_EQ(second->origin, RepodataOrigin::not_modified);
  EXPECT_EQ(second->json_path, first->json_path);
  EXPECT_EQ(slurp(second->json_path), json);

  const auto served = server().requests();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_EQ(served[0].status, 304);
  EXPECT_EQ(served[0].if_none_match, state_before["etag"].get<std::string>());
  EXPECT_EQ(served[0].if_modified_since, state_before["mod"].get<std::string>());

  const auto state_after = state_file(url);
  EXPECT_GT(state_after["refresh_ns"].get<std::int64_t>(), state_before["refresh_ns"].get<std::int64_t>());
  EXPECT_EQ(state_after["etag"], state_before["etag"]);
  EXPECT_EQ(state_after["size"], state_before["size"]);
  EXPECT_EQ(state_after["mtime_ns"], stamp_before->mtime_ns);
  EXPECT_EQ(repodata::stamp_of(second->json_path)->mtime_ns, stamp_before->mtime_ns);
}

TEST_F(FetchConditional, ChangedUpstreamIsDownloadedAgain) {
  publish("conda-forge", "linux-64", sample_repodata("linux-64", 30, 1));
  const std::string url = subdir_url("conda-forge", "linux-64");
  ASSERT_TRUE(fetch(url));
  const auto etag_before = state_file(url)["etag"];

  const std::string updated = sample_repodata("linux-64", 31, 2);
  publish("conda-forge", "linux-64", updated);
  const auto second = fetch(url);
  ASSERT_TRUE(second) << describe(second);
  EXPECT_EQ(second->origin, RepodataOrigin::downloaded);
  EXPECT_EQ(slurp(second->json_path), updated);
  EXPECT_NE(state_file(url)["etag"], etag_before);
  EXPECT_EQ(state_file(url)["size"], updated.size());
}

TEST_F(FetchConditional, LastModifiedAloneStillRevalidates) {
  publish("ch", "noarch", sample_repodata("noarch", 3));
  const std::string url = subdir_url("ch", "noarch");
  ASSERT_TRUE(fetch(url));
  // A server that sends no ETag: only Last-Modified is left to revalidate with.
  const repodata::RepodataCache cache(cache_dir());
  auto state = *cache.load(url)->state;
  state.etag.clear();
  ASSERT_TRUE(cache.write_state(url, state));
  server().clear();

  const auto second = fetch(url);
  ASSERT_TRUE(second) << describe(second);
  EXPECT_EQ(second->origin, RepodataOrigin::not_modified);
  const auto served = server().requests();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_TRUE(served[0].if_none_match.empty());
  EXPECT_EQ(served[0].if_modified_since, state.mod);
}

TEST_F(FetchConditional, FreshByCacheControlMaxAgeSkipsTheServer) {
  publish("ch", "linux-64", sample_repodata("linux-64", 3));
  const std::string url = subdir_url("ch", "linux-64");
  auto options = this->options();
  options.ttl.reset();  // follow the server's "max-age=60"
  ASSERT_TRUE(fetch(url, options));
  server().clear();

  const auto second = fetch(url, options);
  ASSERT_TRUE(second) << describe(second);
  EXPECT_EQ(second->origin, RepodataOrigin::cache);
  EXPECT_TRUE(server().requests().empty());
}

TEST_F(FetchConditional, NoCacheHeaderMeansAskEveryTime) {
  server().set_cache_control("no-cache");
  publish("ch", "linux-64", sample_repodata("linux-64", 3));
  const std::string url = subdir_url("ch", "linux-64");
  auto options = this->options();
  options.ttl.reset();
  ASSERT_TRUE(fetch(url, options));
  const auto second = fetch(url, options);
  ASSERT_TRUE(second) << describe(second);
  EXPECT_EQ(second->origin, RepodataOrigin::not_modified);
}

TEST_F(FetchConditional, ConfiguredTtlOverridesTheServersMaxAge) {
  server().set_cache_control("public, max-age=0");
  publish("ch", "linux-64", sample_repodata("linux-64", 3));
  const std::string url = subdir_url("ch", "linux-64");
  auto options = this->options();
  options.ttl = std::chrono::seconds(3600);
  ASSERT_TRUE(fetch(url, options));
  server().clear();
  const auto second = fetch(url, options);
  ASSERT_TRUE(second) << describe(second);
  EXPECT_EQ(second->origin, RepodataOrigin::cache);
  EXPECT_TRUE(server().requests().empty());
}

TEST_F(FetchConditional, StateThatNoLongerDescribesTheFileIsNotTrusted) {
  const std::string json = sample_repodata("linux-64", 3);
  publish("ch", "linux-64", json);
  const std::string url = subdir_url("ch", "linux-64");
  const auto first = fetch(url);
  ASSERT_TRUE(first);
  // Someone else changed the cached JSON: its validators no longer apply.
  spit(first->json_path, json + "\n");
  server().clear();

  const auto second = fetch(url);
  ASSERT_TRUE(second) << describe(second);
  EXPECT_EQ(second->origin, RepodataOrigin::downloaded);
  EXPECT_EQ(slurp(second->json_path), json);
  const auto served = server().requests();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_TRUE(served[0].if_none_match.empty());
}

// A private channel's token and password never rest in the cache (the
// state file names the URL masked), and conditional requests still work.
TEST_F(FetchConditional, APrivateChannelsSecretsAreNotStoredInTheCache) {
  const std::string json = sample_repodata("linux-64", 10);
  publish("private", "linux-64", json);
  server().require_token("tk-12345");
  const std::string url = "http://user:secret@127.0.0.1:" + std::to_string(server().port()) +
                          "/t/tk-12345/private/linux-64/";
  const auto first = fetch(url);
  ASSERT_TRUE(first) << describe(first);
  EXPECT_EQ(state_file(url)["url"], "http://127.0.0.1:" + std::to_string(server().port()) +
                                        "/t/<TOKEN>/private/linux-64/repodata.json.zst");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(cache_dir())) {
    if (!entry.is_regular_file()) continue;
    const auto content = slurp(entry.path());
    EXPECT_EQ(content.find("tk-12345"), std::string::npos) << entry.path();
    EXPECT_EQ(content.find("secret"), std::string::npos) << entry.path();
  }
  const auto second = fetch(url);
  ASSERT_TRUE(second) << describe(second);
  EXPECT_EQ(second->origin, RepodataOrigin::not_modified);
}

}  // namespace
}  // namespace gpuenv::testing
