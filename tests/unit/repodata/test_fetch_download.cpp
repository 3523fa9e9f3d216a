// Downloading repodata into an empty cache: .zst first, .json as fallback,
// the stored file and its state, and per-subdir errors.
#include <gtest/gtest.h>

#include "fetch_fixture.hpp"

namespace gpuenv::testing {
namespace {

using repodata::FetchErrorKind;
using repodata::RepodataOrigin;

using FetchDownload = FetchTest;

TEST_F(FetchDownload, ZstIsPreferredAndStoredDecompressedWithItsState) {
  const std::string json = sample_repodata("linux-64", 50);
  publish("conda-forge", "linux-64", json);
  const std::string url = subdir_url("conda-forge", "linux-64");

  const auto result = fetch(url);
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(result->origin, RepodataOrigin::downloaded);
  EXPECT_EQ(result->source_url, url + "repodata.json.zst");
  EXPECT_EQ(result->json_path, repodata::RepodataCache(cache_dir()).json_path(url));
  EXPECT_EQ(slurp(result->json_path), json);

  const auto served = server().requests();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_EQ(served[0].path, path_of("conda-forge", "linux-64", "repodata.json.zst"));
  EXPECT_TRUE(served[0].if_none_match.empty());

  const auto state = state_file(url);
  EXPECT_EQ(state["url"], url + "repodata.json.zst");
  EXPECT_EQ(state["etag"].get<std::string>().front(), '"');
  EXPECT_FALSE(state["mod"].get<std::string>().empty());
  EXPECT_EQ(state["cache_control"], "public, max-age=60");
  EXPECT_EQ(state["size"], json.size());
  EXPECT_EQ(state["mtime_ns"], repodata::stamp_of(result->json_path)->mtime_ns);
  EXPECT_EQ(state["has_zst"]["value"], true);
  EXPECT_TRUE(state["has_zst"]["last_checked"].get<std::string>().ends_with("Z"));
  EXPECT_TRUE(partial_files_in_cache().empty());
}

TEST_F(FetchDownload, FallsBackToJsonWhenZstIsMissingAndRemembersIt) {
  const std::string json = sample_repodata("noarch", 20);
  publish("bioconda", "noarch", json, Publish::json_only);
  const std::string url = subdir_url("bioconda", "noarch");

  const auto first = fetch(url);
  ASSERT_TRUE(first) << describe(first);
  EXPECT_EQ(first->source_url, url + "repodata.json");
  EXPECT_EQ(slurp(first->json_path), json);
  auto served = server().requests();
  ASSERT_EQ(served.size(), 2u);
  EXPECT_EQ(served[0].path, path_of("bioconda", "noarch", "repodata.json.zst"));
  EXPECT_EQ(served[0].status, 404);
  EXPECT_EQ(served[1].path, path_of("bioconda", "noarch", "repodata.json"));
  EXPECT_EQ(state_file(url)["has_zst"]["value"], false);

  // The next run goes straight to repodata.json, conditionally.
  server().clear();
  const auto second = fetch(url);
  ASSERT_TRUE(second) << describe(second);
  EXPECT_EQ(second->origin, RepodataOrigin::not_modified);
  served = server().requests();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_EQ(served[0].path, path_of("bioconda", "noarch", "repodata.json"));
  EXPECT_EQ(served[0].status, 304);
}

TEST_F(FetchDownload, ZstOnlyChannelWorks) {
  const std::string json = sample_repodata("linux-aarch64", 10);
  publish("zst-only", "linux-aarch64", json, Publish::zst_only);
  const auto result = fetch(subdir_url("zst-only", "linux-aarch64"));
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(slurp(result->json_path), json);
}

TEST_F(FetchDownload, LargeRepodataIsStreamedThroughTheDecompressor) {
  // Many MB of JSON: many network chunks and many decompressor output
  // buffers, which a whole-body implementation would not exercise.
  const std::string json = sample_repodata("linux-64", 40000);
  ASSERT_GT(json.size(), 5u * 1000 * 1000);
  publish("big", "linux-64", json);
  const auto result = fetch(subdir_url("big", "linux-64"));
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(slurp(result->json_path), json);
}

TEST_F(FetchDownload, GzipEncodedJsonIsDecodedBeforeItIsStored) {
  // Most channels serve repodata.json with Content-Encoding: gzip; the
  // Content-Length check must count the bytes on the wire, not the JSON.
  server().command({{"op", "gzip"}, {"enabled", true}});
  const std::string json = sample_repodata("noarch", 500);
  publish("gz", "noarch", json, Publish::json_only);
  const auto result = fetch(subdir_url("gz", "noarch"));
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(slurp(result->json_path), json);
}

TEST_F(FetchDownload, MissingSubdirNamesTheUrlAndTheChannel) {
  const std::string url = subdir_url("no-such-channel", "linux-64");
  const auto result = fetch(url, options(), "no-such-channel");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::not_found);
  EXPECT_EQ(result.error().url, url + "repodata.json");
  EXPECT_EQ(result.error().channel, "no-such-channel");
  const std::string& message = result.error().message;
  EXPECT_NE(message.find("could not fetch " + url + "repodata.json (channel no-such-channel)"),
            std::string::npos) << message;
  EXPECT_NE(message.find("HTTP 404 Not Found"), std::string::npos) << message;
  EXPECT_NE(message.find("has a linux-64 subdir"), std::string::npos) << message;
  // A 404 is not retried.
  EXPECT_EQ(server().requests().size(), 2u);
}

TEST_F(FetchDownload, OneFailingSubdirDoesNotStopTheOthers) {
  publish("good", "linux-64", sample_repodata("linux-64", 5));
  publish("good", "noarch", sample_repodata("noarch", 5), Publish::json_only);
  const auto results = repodata::fetch_repodata({{subdir_url("good", "linux-64"), "good"},
                                                 {subdir_url("missing", "linux-64"), "missing"},
                                                 {subdir_url("good", "noarch"), "good"}},
                                                options());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0]) << describe(results[0]);
  ASSERT_FALSE(results[1]);
  EXPECT_NE(results[1].error().message.find("channel missing"), std::string::npos);
  EXPECT_TRUE(results[2]) << describe(results[2]);
}

TEST_F(FetchDownload, ServerErrorOtherThan5xxIsReportedWithAdvice) {
  const std::string url = subdir_url("private", "linux-64");
  server().fail_with_status(path_of("private", "linux-64", "repodata.json.zst"), 401, -1);
  const auto result = fetch(url, options(), "private");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::http_status);
  EXPECT_NE(result.error().message.find("HTTP 401 Unauthorized"), std::string::npos)
      << result.error().message;
  EXPECT_NE(result.error().message.find("credentials"), std::string::npos);
  EXPECT_EQ(server().requests().size(), 1u);  // not retried
}

TEST_F(FetchDownload, ShortPlainTextExplanationsFromTheServerAreShown) {
  const std::string zst = path_of("private", "linux-64", "repodata.json.zst");
  server().fault(zst, {{"kind", "status"}, {"status", 403}, {"body", "token expired\n"}, {"times", -1}});
  server().fault(path_of("private", "linux-64", "repodata.json"),
                 {{"kind", "status"}, {"status", 403}, {"body", "token expired\n"}, {"times", -1}});
  const auto result = fetch(subdir_url("private", "linux-64"), options(), "private");
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("HTTP 403 Forbidden (the server says: \"token expired\")"),
            std::string::npos) << result.error().message;
}

TEST_F(FetchDownload, CredentialsInTheUrlAreMaskedInErrors) {
  const std::string url = "http://user:secret@127.0.0.1:" + std::to_string(server().port()) +
                          "/t/tk-12345/private/linux-64/";
  const auto result = fetch(url, options(), "private");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message.find("secret"), std::string::npos) << result.error().message;
  EXPECT_EQ(result.error().message.find("tk-12345"), std::string::npos) << result.error().message;
  // conda's masking: the user and password dropped, the token "<TOKEN>".
  EXPECT_EQ(result.error().message.find("user"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("/t/<TOKEN>/private/linux-64/repodata.json"), std::string::npos);
}

// The same limit and words as package downloads (net/transfer_policy.hpp).
TEST_F(FetchDownload, ARedirectLoopStopsAtTheLimit) {
  const std::string url = subdir_url("loop", "noarch");
  const auto zst = path_of("loop", "noarch", "repodata.json.zst");
  server().redirect(zst, zst);
  const auto result = fetch(url);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("redirected more than 10 times"), std::string::npos)
      << result.error().message;
  EXPECT_LE(server().requests_for(zst).size(), 11u);
}

TEST_F(FetchDownload, ARedirectToAFileUrlIsRefused) {
  const std::string url = subdir_url("local", "noarch");
  server().redirect(path_of("local", "noarch", "repodata.json.zst"), "file:///etc/passwd");
  const auto result = fetch(url);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("only to http:// and https://"), std::string::npos)
      << result.error().message;
}

TEST_F(FetchDownload, UnsupportedLocationIsAnError) {
  const auto result = fetch("s3://bucket/channel/linux-64/");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::invalid_location);
  EXPECT_NE(result.error().message.find("s3://bucket/channel/linux-64/"), std::string::npos);
}

}  // namespace
}  // namespace gpuenv::testing
