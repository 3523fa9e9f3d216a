// Failing servers: retries with backoff, timeouts, dropped connections,
// truncated and invalid bodies, and that none of them damages a good cache
// entry.
#include <gtest/gtest.h>

#include "fetch_fixture.hpp"

namespace gpuenv::testing {
namespace {

using repodata::FetchErrorKind;
using repodata::RepodataOrigin;

using FetchFailures = FetchTest;
using Clock = std::chrono::steady_clock;

TEST_F(FetchFailures, ServerErrorsAreRetriedUntilTheServerRecovers) {
  const std::string json = sample_repodata("linux-64", 10);
  publish("ch", "linux-64", json);
  const std::string zst = path_of("ch", "linux-64", "repodata.json.zst");
  server().fail_with_status(zst, 500, 1);
  server().fail_with_status(zst, 503, 1);
  const auto result = fetch(subdir_url("ch", "linux-64"));
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(slurp(result->json_path), json);
  const auto served = server().requests_for(zst);
  ASSERT_EQ(served.size(), 3u);
  EXPECT_EQ(served[0].status, 500);
  EXPECT_EQ(served[1].status, 503);
  EXPECT_EQ(served[2].status, 200);
}

TEST_F(FetchFailures, PersistentServerErrorGivesUpAfterMaxRetries) {
  publish("ch", "linux-64", sample_repodata("linux-64", 10));
  const std::string zst = path_of("ch", "linux-64", "repodata.json.zst");
  server().fail_with_status(zst, 503, -1);
  const std::string url = subdir_url("ch", "linux-64");
  const auto result = fetch(url);  // max_retries = 2
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::http_status);
  EXPECT_EQ(result.error().url, url + "repodata.json.zst");
  EXPECT_NE(result.error().message.find("HTTP 503 Service Unavailable (after 3 attempts)"),
            std::string::npos) << result.error().message;
  EXPECT_EQ(server().requests_for(zst).size(), 3u);
}

TEST_F(FetchFailures, ZeroRetriesMeansOneAttempt) {
  publish("ch", "linux-64", sample_repodata("linux-64", 10));
  const std::string zst = path_of("ch", "linux-64", "repodata.json.zst");
  server().fail_with_status(zst, 502, 1);
  auto options = this->options();
  options.retry.max_retries = 0;
  const auto result = fetch(subdir_url("ch", "linux-64"), options);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("HTTP 502 Bad Gateway"), std::string::npos);
  EXPECT_EQ(server().requests_for(zst).size(), 1u);
}

TEST_F(FetchFailures, BackoffSeparatesAttempts) {
  publish("ch", "linux-64", sample_repodata("linux-64", 10));
  const std::string zst = path_of("ch", "linux-64", "repodata.json.zst");
  server().fail_with_status(zst, 500, 2);
  auto options = this->options();
  options.retry.backoff = std::chrono::milliseconds(200);  // then 400: at least 600 ms in all
  const auto started = Clock::now();
  ASSERT_TRUE(fetch(subdir_url("ch", "linux-64"), options));
  EXPECT_GE(Clock::now() - started, std::chrono::milliseconds(600));
  const auto served = server().requests_for(zst);
  ASSERT_EQ(served.size(), 3u);
  EXPECT_GE(served[1].start - served[0].end, 0.15);
  EXPECT_GE(served[2].start - served[1].end, 0.35);
}

TEST_F(FetchFailures, StalledResponseTimesOutAndTheRetrySucceeds) {
  const std::string json = sample_repodata("linux-64", 10);
  publish("ch", "linux-64", json);
  const std::string zst = path_of("ch", "linux-64", "repodata.json.zst");
  server().fault(zst, {{"kind", "delay"}, {"seconds", 30}, {"times", 1}});
  auto options = this->options();
  options.client.stall_timeout = std::chrono::seconds(1);
  const auto started = Clock::now();
  const auto result = fetch(subdir_url("ch", "linux-64"), options);
  const auto elapsed = Clock::now() - started;
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(slurp(result->json_path), json);
  // It gave up on the stalled answer after about a second instead of
  // waiting the 30 s for it (the bound is loose for loaded machines).
  EXPECT_GE(elapsed, std::chrono::milliseconds(900));
  EXPECT_LT(elapsed, std::chrono::seconds(20));
  EXPECT_EQ(server().requests_for(zst).size(), 2u);
}

TEST_F(FetchFailures, TimeoutOnEveryAttemptIsANetworkError) {
  publish("ch", "linux-64", sample_repodata("linux-64", 10));
  const std::string zst = path_of("ch", "linux-64", "repodata.json.zst");
  server().fault(zst, {{"kind", "delay"}, {"seconds", 30}, {"times", -1}});
  auto options = this->options();
  options.client.stall_timeout = std::chrono::seconds(1);
  options.retry.max_retries = 1;
  const auto result = fetch(subdir_url("ch", "linux-64"), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::network);
  EXPECT_NE(result.error().message.find("no data arrived for 1 s"), std::string::npos)
      << result.error().message;
  EXPECT_NE(result.error().message.find("(after 2 attempts)"), std::string::npos);
}

TEST_F(FetchFailures, DroppedConnectionIsRetried) {
  const std::string json = sample_repodata("linux-64", 10);
  publish("ch", "linux-64", json);
  const std::string zst = path_of("ch", "linux-64", "repodata.json.zst");
  server().fault(zst, {{"kind", "drop"}, {"times", 1}});
  const auto result = fetch(subdir_url("ch", "linux-64"));
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(slurp(result->json_path), json);
  EXPECT_EQ(server().requests_for(zst).size(), 2u);
}

TEST_F(FetchFailures, RefusedConnectionIsANetworkErrorNamingTheUrl) {
  // Port 1 on loopback: nothing listens there, so connecting is refused.
  const std::string url = "http://127.0.0.1:1/ch/linux-64/";
  auto options = this->options();
  options.retry.max_retries = 1;
  const auto result = fetch(url, options, "ch");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::network);
  EXPECT_NE(result.error().message.find(url + "repodata.json.zst (channel ch)"), std::string::npos)
      << result.error().message;
}

TEST_F(FetchFailures, TruncatedBodyIsRetried) {
  const std::string json = sample_repodata("linux-64", 2000);
  publish("ch", "linux-64", json);
  server().fault(path_of("ch", "linux-64", "repodata.json.zst"), {{"kind", "truncate"}, {"times", 1}});
  const auto result = fetch(subdir_url("ch", "linux-64"));
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(slurp(result->json_path), json);
  EXPECT_TRUE(partial_files_in_cache().empty());
}

// Downloads a first revision, then publishes a second that the server
// mangles with `fault`; the first must stay in the cache, state included.
class FetchKeepsGoodCacheEntry : public FetchTest {
 protected:
  void expect_cache_survives(const std::string& file, const nlohmann::json& fault,
                             FetchErrorKind expected_kind, const std::string& expected_words,
                             Publish what = Publish::zst_and_json) {
    const std::string good = sample_repodata("linux-64", 2000, 1);
    publish("ch", "linux-64", good, what);
    const std::string url = subdir_url("ch", "linux-64");
    const auto first = fetch(url);
    ASSERT_TRUE(first) << describe(first);
    const std::string state_before = slurp(repodata::RepodataCache(cache_dir()).state_path(url));

    publish("ch", "linux-64", sample_repodata("linux-64", 2000, 2), what);
    server().fault(path_of("ch", "linux-64", file), fault);
    const auto second = fetch(url);
    ASSERT_FALSE(second) << describe(second);
    EXPECT_EQ(second.error().kind, expected_kind);
    EXPECT_NE(second.error().message.find(expected_words), std::string::npos) << second.error().message;
    EXPECT_EQ(slurp(first->json_path), good);
    EXPECT_EQ(slurp(repodata::RepodataCache(cache_dir()).state_path(url)), state_before);
    EXPECT_TRUE(partial_files_in_cache().empty());

    // And the entry is still usable: offline, and once the server behaves.
    auto offline = options();
    offline.offline = true;
    const auto from_cache = fetch(url, offline);
    ASSERT_TRUE(from_cache) << describe(from_cache);
    EXPECT_EQ(slurp(from_cache->json_path), good);
  }
};

TEST_F(FetchKeepsGoodCacheEntry, TruncatedOnEveryAttempt) {
  expect_cache_survives("repodata.json.zst", {{"kind", "truncate"}, {"times", -1}},
                        FetchErrorKind::network, "closed before the whole file arrived");
}

TEST_F(FetchKeepsGoodCacheEntry, HtmlInsteadOfJson) {
  expect_cache_survives("repodata.json", {{"kind", "body"}, {"body", "<html>proxy login</html>"}},
                        FetchErrorKind::invalid_body, "does not start like a JSON object",
                        Publish::json_only);
}

TEST_F(FetchKeepsGoodCacheEntry, JsonCutOffWithAMatchingContentLength) {
  expect_cache_survives("repodata.json",
                        {{"kind", "body"}, {"body", "{\"info\": {}, \"packages\": {\"a\": [1, "}},
                        FetchErrorKind::invalid_body, "cut off", Publish::json_only);
}

TEST_F(FetchKeepsGoodCacheEntry, ZstStreamEndingInsideAFrame) {
  const std::string compressed = repodata::zstd_compress(sample_repodata("linux-64", 2000, 3), 3);
  expect_cache_survives(
      "repodata.json.zst",
      {{"kind", "body"}, {"body", bytes_as_latin1_utf8(std::string_view(compressed).substr(0, compressed.size() / 2))}},
      FetchErrorKind::invalid_body, "ends inside a frame");
}

TEST_F(FetchKeepsGoodCacheEntry, CorruptZst) {
  expect_cache_survives("repodata.json.zst",
                        {{"kind", "body"}, {"body", "this is not zstd at all"}},
                        FetchErrorKind::invalid_body, "corrupt zstd data");
}

TEST_F(FetchKeepsGoodCacheEntry, EmptyBody) {
  expect_cache_survives("repodata.json.zst", {{"kind", "body"}, {"body", ""}},
                        FetchErrorKind::invalid_body, "empty");
}

TEST_F(FetchFailures, InvalidBodyWithoutACachedCopySaysSo) {
  publish("ch", "linux-64", sample_repodata("linux-64", 3), Publish::json_only);
  server().fault(path_of("ch", "linux-64", "repodata.json"),
                 {{"kind", "body"}, {"body", "<html>oops</html>"}});
  const auto result = fetch(subdir_url("ch", "linux-64"));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::invalid_body);
  EXPECT_NE(result.error().message.find("serves a broken file"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(
      repodata::RepodataCache(cache_dir()).json_path(subdir_url("ch", "linux-64"))));
  EXPECT_TRUE(partial_files_in_cache().empty());
}

TEST_F(FetchFailures, UnwritableCacheIsReportedAsACacheError) {
  publish("ch", "linux-64", sample_repodata("linux-64", 3));
  auto options = this->options();
  // A regular file where the directory should be: fails even for root.
  options.cache_dir = cache_dir() / "blocked";
  spit(options.cache_dir, "not a directory");
  const auto result = fetch(subdir_url("ch", "linux-64"), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::cache_io);
  EXPECT_NE(result.error().message.find(options.cache_dir.string()), std::string::npos)
      << result.error().message;
}

}  // namespace
}  // namespace gpuenv::testing
