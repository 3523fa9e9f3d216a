// Local channels (file:// URLs and plain paths): repodata.json is used in
// place; a subdir with only repodata.json.zst is decompressed into the cache.
#include <gtest/gtest.h>

#include "fetch_fixture.hpp"
#include "gpuenv/net/file_url.hpp"
#include "gpuenv/repodata/subdir_location.hpp"

namespace gpuenv::testing {
namespace {

using repodata::FetchErrorKind;
using repodata::RepodataOrigin;

class FetchLocal : public ::testing::Test {
 protected:
  std::filesystem::path channel_subdir(const std::string& subdir) const {
    return scratch_.path() / "my channel" / subdir;  // a space, to exercise URL encoding
  }
  std::filesystem::path cache_dir() const { return scratch_.path() / "cache"; }
  repodata::FetchOptions options() const {
    repodata::FetchOptions options;
    options.cache_dir = cache_dir();
    return options;
  }
  repodata::FetchResult fetch(const std::string& location, repodata::FetchOptions options) {
    return repodata::fetch_repodata({{location, "local"}}, options).at(0);
  }
  repodata::FetchResult fetch(const std::string& location) { return fetch(location, options()); }

  ScratchDir scratch_;
};

TEST_F(FetchLocal, PlainPathRepodataJsonIsUsedInPlace) {
  const std::string json = sample_repodata("linux-64", 3);
  spit(channel_subdir("linux-64") / "repodata.json", json);
  const auto result = fetch(channel_subdir("linux-64").string());
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(result->origin, RepodataOrigin::local);
  EXPECT_EQ(result->json_path, channel_subdir("linux-64") / "repodata.json");
  EXPECT_FALSE(std::filesystem::exists(cache_dir()));  // nothing copied
}

TEST_F(FetchLocal, FileUrlIsDecodedAndUsedInPlace) {
  spit(channel_subdir("noarch") / "repodata.json", sample_repodata("noarch", 3));
  const std::string url = net::file_url_from_path(channel_subdir("noarch")) + "/";
  EXPECT_NE(url.find("my%20channel"), std::string::npos) << url;
  const auto result = fetch(url);
  ASSERT_TRUE(result) << describe(result);
  EXPECT_EQ(result->json_path, channel_subdir("noarch") / "repodata.json");
  EXPECT_EQ(result->source_url, url + "repodata.json");
}

// conda's url_to_path: file://localhost/x is /x; another host is refused
// (the package download decodes file:// URLs the same way).
TEST_F(FetchLocal, FileUrlOfLocalhostIsLocalAndOtherHostsAreRefused) {
  spit(channel_subdir("noarch") / "repodata.json", sample_repodata("noarch", 3));
  const std::string path = net::file_url_from_path(channel_subdir("noarch")).substr(7);
  const auto local = fetch("file://localhost" + path);
  ASSERT_TRUE(local) << describe(local);
  EXPECT_EQ(local->json_path, channel_subdir("noarch") / "repodata.json");
  const auto remote = fetch("file://fileserver" + path);
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error().kind, FetchErrorKind::invalid_location);
  EXPECT_NE(remote.error().message.find("names the host 'fileserver', which is not this machine"),
            std::string::npos)
      << remote.error().message;
}

TEST_F(FetchLocal, ZstOnlySubdirIsDecompressedIntoTheCacheAndReused) {
  const std::string json = sample_repodata("linux-64", 100, 1);
  spit(channel_subdir("linux-64") / "repodata.json.zst", repodata::zstd_compress(json, 3));
  const auto first = fetch(channel_subdir("linux-64").string());
  ASSERT_TRUE(first) << describe(first);
  EXPECT_EQ(first->origin, RepodataOrigin::local);
  EXPECT_EQ(first->json_path.parent_path(), cache_dir());
  EXPECT_EQ(slurp(first->json_path), json);
  const auto stamp = repodata::stamp_of(first->json_path);

  const auto again = fetch(channel_subdir("linux-64").string());
  ASSERT_TRUE(again) << describe(again);
  EXPECT_EQ(repodata::stamp_of(again->json_path)->mtime_ns, stamp->mtime_ns);  // not redone

  const std::string updated = sample_repodata("linux-64", 101, 2);
  spit(channel_subdir("linux-64") / "repodata.json.zst", repodata::zstd_compress(updated, 3));
  const auto changed = fetch(channel_subdir("linux-64").string());
  ASSERT_TRUE(changed) << describe(changed);
  EXPECT_EQ(slurp(changed->json_path), updated);
}

TEST_F(FetchLocal, WorksOffline) {
  spit(channel_subdir("linux-64") / "repodata.json", sample_repodata("linux-64", 3));
  auto options = this->options();
  options.offline = true;
  EXPECT_TRUE(fetch(channel_subdir("linux-64").string(), options));
}

TEST_F(FetchLocal, SubdirWithoutRepodataIsNotFound) {
  std::filesystem::create_directories(channel_subdir("win-64"));
  const auto result = fetch(channel_subdir("win-64").string());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::not_found);
  EXPECT_NE(result.error().message.find(channel_subdir("win-64").string()), std::string::npos)
      << result.error().message;
  EXPECT_NE(result.error().message.find("channel local"), std::string::npos);
}

TEST_F(FetchLocal, TruncatedLocalJsonIsRejected) {
  spit(channel_subdir("linux-64") / "repodata.json", "{\"packages\": {");
  const auto result = fetch(channel_subdir("linux-64").string());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::invalid_body);
  EXPECT_NE(result.error().message.find("cut off"), std::string::npos) << result.error().message;
}

TEST_F(FetchLocal, TruncatedLocalZstIsRejectedAndNotCached) {
  const std::string compressed = repodata::zstd_compress(sample_repodata("linux-64", 500), 3);
  spit(channel_subdir("linux-64") / "repodata.json.zst", compressed.substr(0, compressed.size() / 2));
  const auto result = fetch(channel_subdir("linux-64").string());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, FetchErrorKind::invalid_body);
  EXPECT_NE(result.error().message.find("ends inside a frame"), std::string::npos)
      << result.error().message;
  const repodata::RepodataCache cache(cache_dir());
  const auto location = repodata::SubdirLocation::parse(channel_subdir("linux-64").string());
  EXPECT_FALSE(std::filesystem::exists(cache.json_path(location->url())));
}

}  // namespace
}  // namespace gpuenv::testing
