// The CEP 16 fetch process over a real HTTP server and from local
// channels: only the closure's shards, cached forever, the index
// revalidated with a 304, fallback to repodata.json, offline, tokens, and
// shards that are not what the index says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fetch_fixture.hpp"
#include "gpuenv/net/file_url.hpp"
#include "gpuenv/repodata/channel_gateway.hpp"
#include "gpuenv/repodata/shard_writer.hpp"
#include "gpuenv/repodata/sharded_fetch.hpp"
#include "support/testdata.hpp"

namespace gpuenv::repodata {
namespace {

using nlohmann::json;
using testing::slurp;
using testing::spit;

// "name >=1" -> "name"; a '*' in the name is a pattern.
std::optional<std::string> first_word(std::string_view dependency) {
  const std::string name(dependency.substr(0, dependency.find(' ')));
  if (name.find('*') != std::string::npos) return std::nullopt;
  return name;
}

json record(const std::string& name, const std::string& version, const std::string& subdir,
            std::vector<std::string> depends) {
  return {{"name", name}, {"version", version}, {"build", "h0_0"},       {"build_number", 0},
          {"depends", depends}, {"subdir", subdir}, {"size", 10}, {"sha256", std::string(64, 'c')}};
}

class ShardedFetchTest : public testing::FetchTest {
 protected:
  // linux-64: app -> lib -> base (noarch), other -> unrelated.
  void publish_sharded_channel(const std::string& channel) {
    std::map<std::string, json> linux64;
    linux64["app-1.0-h0_0.conda"] = record("app", "1.0", "linux-64", {"lib >=1"});
    linux64["lib-1.0-h0_0.conda"] = record("lib", "1.0", "linux-64", {"base"});
    linux64["other-1.0-h0_0.conda"] = record("other", "1.0", "linux-64", {"unrelated"});
    linux64["unrelated-1.0-h0_0.conda"] = record("unrelated", "1.0", "linux-64", {});
    std::map<std::string, json> noarch;
    noarch["base-1.0-h0_0.conda"] = record("base", "1.0", "noarch", {});
    for (const auto& [subdir, records] : {std::pair{"linux-64", &linux64}, {"noarch", &noarch}}) {
      const auto dir = served_dir() / channel / subdir;
      std::filesystem::create_directories(dir);
      ASSERT_TRUE(write_subdir_shards(dir, subdir, *records, 3));
      json repodata = {{"info", {{"subdir", subdir}}}, {"packages", json::object()}, {"packages.conda", *records}};
      publish(channel, subdir, repodata.dump());
    }
  }

  ShardedFetchRequest request_for(const std::string& channel, std::vector<std::string> roots,
                                  const std::string& prefix = "") {
    ShardedFetchRequest request;
    for (const char* subdir : {"linux-64", "noarch"}) {
      request.subdirs.push_back({server().url(prefix + "/" + channel + "/" + subdir + "/"), channel});
    }
    request.root_names = std::move(roots);
    request.dependency_name = first_word;
    return request;
  }

  std::vector<std::string> shard_requests() {
    std::vector<std::string> paths;
    for (const auto& served : server().requests()) {
      if (served.path.find("/shards/") != std::string::npos) paths.push_back(served.path);
    }
    return paths;
  }

  static std::set<std::string> names_in(const std::filesystem::path& json_path) {
    const json document = json::parse(slurp(json_path));
    std::set<std::string> names;
    for (const char* key : {"packages", "packages.conda"}) {
      for (const auto& [filename, value] : document[key].items()) names.insert(value["name"].get<std::string>());
    }
    return names;
  }
};

TEST_F(ShardedFetchTest, FetchesOnlyTheClosureThenRevalidatesOnlyTheIndex) {
  publish_sharded_channel("chan");
  const auto cold = fetch_sharded(request_for("chan", {"app"}), options());
  ASSERT_TRUE(cold) << cold.error().message;
  ASSERT_EQ(cold->subdirs.size(), 2u);
  ASSERT_TRUE(cold->subdirs[0] && cold->subdirs[1]);
  EXPECT_EQ(names_in(cold->subdirs[0]->json), (std::set<std::string>{"app", "lib"}));
  EXPECT_EQ(names_in(cold->subdirs[1]->json), (std::set<std::string>{"base"}));
  EXPECT_EQ(shard_requests().size(), 3u);  // app, lib, base: not other or unrelated
  EXPECT_EQ(cold->stats.shards_downloaded, 3u);
  EXPECT_EQ(cold->stats.indexes_downloaded, 2u);
  EXPECT_TRUE(server().requests_for(path_of("chan", "linux-64", "repodata.json")).empty());

  server().clear();
  const auto warm = fetch_sharded(request_for("chan", {"app"}), options());
  ASSERT_TRUE(warm) << warm.error().message;
  EXPECT_EQ(warm->stats.indexes_not_modified, 2u);
  EXPECT_TRUE(warm->stats.closure_reused);
  EXPECT_TRUE(shard_requests().empty());
  const auto index_requests = server().requests_for(path_of("chan", "linux-64", "repodata_shards.msgpack.zst"));
  ASSERT_EQ(index_requests.size(), 1u);
  EXPECT_FALSE(index_requests[0].if_none_match.empty());
  EXPECT_EQ(index_requests[0].status, 304);

  // Another request: cached shards are not asked for again.
  server().clear();
  const auto other = fetch_sharded(request_for("chan", {"app", "other"}), options());
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_EQ(names_in(other->subdirs[0]->json), (std::set<std::string>{"app", "lib", "other", "unrelated"}));
  EXPECT_EQ(shard_requests().size(), 2u);
  EXPECT_EQ(other->stats.shards_cached, 3u);
}

TEST_F(ShardedFetchTest, ASubdirWithoutShardsIsLeftToRepodataJson) {
  publish_sharded_channel("chan");
  std::filesystem::remove(served_dir() / "chan/noarch/repodata_shards.msgpack.zst");
  const auto fetched = fetch_sharded(request_for("chan", {"app"}), options());
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_TRUE(fetched->subdirs[0]);
  EXPECT_FALSE(fetched->subdirs[1]);
  // The 404 is remembered: no second request for it.
  server().clear();
  ASSERT_TRUE(fetch_sharded(request_for("chan", {"app"}), options()));
  EXPECT_TRUE(server().requests_for(path_of("chan", "noarch", "repodata_shards.msgpack.zst")).empty());
}

TEST_F(ShardedFetchTest, APatternDependencyNeedsEverySubdirsRepodata) {
  publish_sharded_channel("chan");
  auto request = request_for("chan", {"app"});
  request.dependency_name = [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
  const auto fetched = fetch_sharded(request, options());
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_TRUE(fetched->needs_everything);
  EXPECT_FALSE(fetched->subdirs[0] || fetched->subdirs[1]);
}

TEST_F(ShardedFetchTest, OfflineUsesCachedShardsAndNamesTheMissingOnes) {
  publish_sharded_channel("chan");
  ASSERT_TRUE(fetch_sharded(request_for("chan", {"app"}), options()));
  server().clear();
  auto offline = options();
  offline.offline = true;
  const auto cached = fetch_sharded(request_for("chan", {"app"}), offline);
  ASSERT_TRUE(cached) << cached.error().message;
  EXPECT_EQ(names_in(cached->subdirs[0]->json), (std::set<std::string>{"app", "lib"}));
  const auto missing = fetch_sharded(request_for("chan", {"other"}), offline);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, FetchErrorKind::not_cached);
  EXPECT_NE(missing.error().message.find("other (chan/linux-64)"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find("without --offline"), std::string::npos);
  EXPECT_TRUE(server().requests().empty());
}

TEST_F(ShardedFetchTest, AShardThatIsNotWhatTheIndexSaysIsRefused) {
  publish_sharded_channel("chan");
  for (const auto& entry : std::filesystem::directory_iterator(served_dir() / "chan/linux-64/shards")) {
    spit(entry.path(), slurp(entry.path()) + "x");  // every shard's bytes no longer match their hash
  }
  const auto fetched = fetch_sharded(request_for("chan", {"app"}), options());
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().message.find("the shard of 'app'"), std::string::npos) << fetched.error().message;
  EXPECT_NE(fetched.error().message.find("channel chan, subdir linux-64"), std::string::npos);
  EXPECT_NE(fetched.error().message.find("sha256"), std::string::npos);
  // Nothing unchecked entered the cache.
  EXPECT_TRUE(fetch_sharded(request_for("chan", {"app"}), options()).error().message.find("sha256") !=
              std::string::npos);
}

// Shards are written to the cache off the walk's thread; a write that
// fails still fails the fetch, naming the cache.
TEST_F(ShardedFetchTest, AShardTheCacheCannotTakeIsAnErrorNamingTheCache) {
  publish_sharded_channel("chan");
  // A directory where the shard of 'lib' (or any other) would be stored.
  for (const auto& entry : std::filesystem::directory_iterator(served_dir() / "chan/linux-64/shards")) {
    std::filesystem::create_directories(cache_dir() / "shards" / entry.path().filename());
  }
  const auto fetched = fetch_sharded(request_for("chan", {"app"}), options());
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().message.find((cache_dir() / "shards").string()), std::string::npos)
      << fetched.error().message;
}

TEST_F(ShardedFetchTest, AMissingShardIsAnErrorNamingIt) {
  publish_sharded_channel("chan");
  std::filesystem::remove_all(served_dir() / "chan/linux-64/shards");
  const auto fetched = fetch_sharded(request_for("chan", {"app"}), options());
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().message.find("the shard of 'app'"), std::string::npos) << fetched.error().message;
  EXPECT_NE(fetched.error().message.find("404"), std::string::npos);
}

TEST_F(ShardedFetchTest, TokensReachTheIndexAndTheShards) {
  publish_sharded_channel("chan");
  server().require_token("secret-token");
  const auto fetched = fetch_sharded(request_for("chan", {"app"}, "/t/secret-token"), options());
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_EQ(names_in(fetched->subdirs[0]->json), (std::set<std::string>{"app", "lib"}));
  EXPECT_EQ(fetched->subdirs[0]->source_url.find("secret-token"), std::string::npos);
  const auto cache_files = std::filesystem::recursive_directory_iterator(cache_dir());
  for (const auto& entry : cache_files) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      EXPECT_EQ(slurp(entry.path()).find("secret-token"), std::string::npos) << entry.path();
    }
  }
}

TEST_F(ShardedFetchTest, AHostileIndexNamesTheChannelAndSubdir) {
  publish_sharded_channel("chan");
  spit(served_dir() / "chan/linux-64/repodata_shards.msgpack.zst", zstd_compress("\xdd\xff\xff\xff\xff", 3));
  const auto fetched = fetch_sharded(request_for("chan", {"app"}), options());
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().message.find("shard index of channel chan, subdir linux-64"), std::string::npos)
      << fetched.error().message;
}

TEST_F(ShardedFetchTest, CondasShardedFixtureFromALocalChannel) {
  const auto channel = gpuenv::testing::testdata_dir() / "channels/conda-format-repo";
  ShardedFetchRequest request;
  for (const char* subdir : {"linux-64", "noarch"}) {
    request.subdirs.push_back({net::file_url_from_path(channel / subdir), "conda-format-repo"});
  }
  request.root_names = {"zlib"};
  request.dependency_name = first_word;
  const auto fetched = fetch_sharded(request, options());
  ASSERT_TRUE(fetched) << fetched.error().message;
  ASSERT_TRUE(fetched->subdirs[0]);
  EXPECT_FALSE(fetched->subdirs[1]);  // conda's fixture has no noarch shards
  EXPECT_EQ(names_in(fetched->subdirs[0]->json), (std::set<std::string>{"zlib", "libgcc-ng"}));
  EXPECT_EQ(fetched->stats.shards_cached, 2u);
}

TEST_F(ShardedFetchTest, TheGatewayMixesShardsAndRepodataJson) {
  publish_sharded_channel("chan");
  std::filesystem::remove(served_dir() / "chan/noarch/repodata_shards.msgpack.zst");
  GatewayRequest request;
  request.channels = {server().url("/chan")};
  request.platform = "linux-64";
  request.cache_dir = cache_dir();
  request.shards = ShardedClosureRequest{{"app"}, true, first_word};
  const auto fetched = fetch_channels(request);
  ASSERT_TRUE(fetched) << fetched.error();
  ASSERT_EQ(fetched->subdirs.size(), 2u);
  EXPECT_TRUE(fetched->subdirs[0].sharded);
  EXPECT_EQ(names_in(fetched->subdirs[0].json), (std::set<std::string>{"app", "lib"}));
  EXPECT_FALSE(fetched->subdirs[1].sharded);
  EXPECT_EQ(names_in(fetched->subdirs[1].json), (std::set<std::string>{"base"}));
}


// revalidate_alongside: a warm cache answers at once while the shard
// indexes are revalidated in the background.
class RevalidateAlongsideTest : public ShardedFetchTest {
 protected:
  // As on conda.anaconda.org once max-age has passed: every run asks.
  void SetUp() override {
    ShardedFetchTest::SetUp();
    server().set_cache_control("public, max-age=0");
  }
  GatewayRequest gateway_request(std::vector<std::string> roots) {
    GatewayRequest request;
    request.channels = {server().url("/chan")};
    request.platform = "linux-64";
    request.cache_dir = cache_dir();
    request.shards = ShardedClosureRequest{std::move(roots), true, first_word};
    request.revalidate_alongside = true;
    return request;
  }
  std::vector<testing::ServedRequest> index_requests() {
    auto linux64 = server().requests_for(path_of("chan", "linux-64", "repodata_shards.msgpack.zst"));
    const auto noarch = server().requests_for(path_of("chan", "noarch", "repodata_shards.msgpack.zst"));
    linux64.insert(linux64.end(), noarch.begin(), noarch.end());
    return linux64;
  }
};

TEST_F(RevalidateAlongsideTest, AWarmCacheAnswersAtOnceAndTheServerConfirmsItWithA304) {
  publish_sharded_channel("chan");
  const auto cold = fetch_channels(gateway_request({"app"}));
  ASSERT_TRUE(cold) << cold.error();
  EXPECT_EQ(cold->revalidation, nullptr) << "nothing cached: the ordinary fetch";

  server().clear();
  auto warm = fetch_channels(gateway_request({"app"}));
  ASSERT_TRUE(warm) << warm.error();
  ASSERT_NE(warm->revalidation, nullptr);
  ASSERT_EQ(warm->subdirs.size(), 2u);
  EXPECT_EQ(names_in(warm->subdirs[0].json), (std::set<std::string>{"app", "lib"}));
  EXPECT_EQ(names_in(warm->subdirs[1].json), (std::set<std::string>{"base"}));
  EXPECT_TRUE(warm->revalidation->still_current());
  EXPECT_TRUE(warm->revalidation->still_current()) << "asked twice, answered once";
  const auto asked = index_requests();
  ASSERT_EQ(asked.size(), 2u);
  for (const auto& request : asked) {
    EXPECT_FALSE(request.if_none_match.empty());
    EXPECT_EQ(request.status, 304);
  }
  EXPECT_TRUE(shard_requests().empty());
}

TEST_F(RevalidateAlongsideTest, AnIndexWithinItsMaxAgeIsNotAskedAbout) {
  server().set_cache_control("public, max-age=600");
  publish_sharded_channel("chan");
  ASSERT_TRUE(fetch_channels(gateway_request({"app"})));
  server().clear();
  auto warm = fetch_channels(gateway_request({"app"}));
  ASSERT_TRUE(warm) << warm.error();
  ASSERT_NE(warm->revalidation, nullptr);
  EXPECT_TRUE(warm->revalidation->still_current());
  EXPECT_TRUE(server().requests().empty());
}

TEST_F(RevalidateAlongsideTest, AChangedIndexIsReportedAndTheNextFetchHasTheNewRecords) {
  publish_sharded_channel("chan");
  ASSERT_TRUE(fetch_channels(gateway_request({"app"})));
  // The channel changes: lib 2.0 appears, so linux-64's index changes.
  std::map<std::string, json> linux64;
  linux64["app-1.0-h0_0.conda"] = record("app", "1.0", "linux-64", {"lib >=1"});
  linux64["lib-1.0-h0_0.conda"] = record("lib", "1.0", "linux-64", {"base"});
  linux64["lib-2.0-h0_0.conda"] = record("lib", "2.0", "linux-64", {"base"});
  const auto dir = served_dir() / "chan/linux-64";
  ASSERT_TRUE(write_subdir_shards(dir, "linux-64", linux64, 3));

  auto speculative = fetch_channels(gateway_request({"app"}));
  ASSERT_TRUE(speculative) << speculative.error();
  ASSERT_NE(speculative->revalidation, nullptr);
  EXPECT_FALSE(speculative->revalidation->still_current());

  auto request = gateway_request({"app"});
  request.revalidate_alongside = false;
  const auto fresh = fetch_channels(request);
  ASSERT_TRUE(fresh) << fresh.error();
  const json document = json::parse(slurp(fresh->subdirs[0].json));
  EXPECT_TRUE(document["packages.conda"].contains("lib-2.0-h0_0.conda")) << document.dump();
}

TEST_F(RevalidateAlongsideTest, ShardsTheCacheLacksAreFetchedWithoutAskingForTheIndexTwice) {
  publish_sharded_channel("chan");
  ASSERT_TRUE(fetch_channels(gateway_request({"app"})));
  server().clear();
  const auto other = fetch_channels(gateway_request({"other"}));
  ASSERT_TRUE(other) << other.error();
  EXPECT_EQ(other->revalidation, nullptr) << "the cache could not answer: the ordinary fetch";
  EXPECT_EQ(names_in(other->subdirs[0].json), (std::set<std::string>{"other", "unrelated"}));
  EXPECT_EQ(index_requests().size(), 2u) << "one revalidation per subdir";
  EXPECT_EQ(shard_requests().size(), 2u);
}

TEST_F(RevalidateAlongsideTest, AnIndexTheServerNoLongerHasIsNotCurrent) {
  publish_sharded_channel("chan");
  ASSERT_TRUE(fetch_channels(gateway_request({"app"})));
  server().fail_with_status(path_of("chan", "noarch", "repodata_shards.msgpack.zst"), 404);
  auto warm = fetch_channels(gateway_request({"app"}));
  ASSERT_TRUE(warm) << warm.error();
  ASSERT_NE(warm->revalidation, nullptr);
  EXPECT_FALSE(warm->revalidation->still_current());
}

}  // namespace
}  // namespace gpuenv::repodata
