// The cache's naming, state files and freshness rules, and subdir locations.
#include <gtest/gtest.h>

#include "fetch_fixture.hpp"
#include "gpuenv/repodata/partial_file.hpp"
#include "gpuenv/repodata/repodata_cache.hpp"
#include "gpuenv/repodata/repodata_state.hpp"
#include "gpuenv/repodata/subdir_location.hpp"

namespace gpuenv::testing {
namespace {

using namespace std::chrono_literals;
using repodata::RepodataCache;
using repodata::RepodataState;

TEST(RepodataCache, KeysMatchCondaAndMamba) {
  // mamba's test vector for cache_name_from_url, and conda's cache_fn_url
  // (md5 of the subdir URL with its trailing slash, first 8 hex digits).
  EXPECT_EQ(RepodataCache::key_for("http://test.com/1234/"), "302f0a61");
  EXPECT_EQ(RepodataCache::key_for("http://test.com/1234"), "302f0a61");
  EXPECT_EQ(RepodataCache::key_for("https://conda.anaconda.org/conda-forge/linux-64/"), "497deca9");
  const RepodataCache cache("/tmp/cache");
  EXPECT_EQ(cache.json_path("http://test.com/1234/"), "/tmp/cache/302f0a61.json");
  EXPECT_EQ(cache.state_path("http://test.com/1234/"), "/tmp/cache/302f0a61.state.json");
}

TEST(RepodataState, RoundTripsThroughItsJsonForm) {
  RepodataState state;
  state.url = "https://conda.anaconda.org/conda-forge/noarch/repodata.json.zst";
  state.etag = "W/\"abc\"";
  state.mod = "Tue, 20 Feb 2024 10:00:00 GMT";
  state.cache_control = "public, max-age=1200";
  state.size = 123456;
  state.mtime_ns = 1708423200123456789;
  state.refreshed = std::chrono::system_clock::time_point(1708423300s);
  state.has_zst = repodata::VariantAvailability{true, std::chrono::system_clock::time_point(1708423300s + 250ms)};
  const auto parsed = repodata::parse_state(repodata::serialize_state(state));
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(*parsed, state);
}

TEST(RepodataState, ReadsAStateFileCondaWrote) {
  const auto parsed = repodata::parse_state(R"({
    "url": "https://conda.anaconda.org/conda-forge/linux-64/repodata.json",
    "etag": "\"bec332621e00fc4ad87ba185171bcf46\"",
    "mod": "Fri, 11 Feb 2022 13:52:44 GMT",
    "cache_control": "public, max-age=1200",
    "size": 272,
    "mtime_ns": 1676055178453146530,
    "refresh_ns": 1676055178453146530,
    "has_zst": {"last_checked": "2023-01-06T16:33:06.541Z", "value": false},
    "has_jlap": {"last_checked": "2023-01-06T16:33:06.541Z", "value": false}
  })");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->size, 272u);
  ASSERT_TRUE(parsed->has_zst);
  EXPECT_FALSE(parsed->has_zst->available);
  EXPECT_EQ(repodata::format_utc_timestamp(parsed->has_zst->last_checked),
            "2023-01-06T16:33:06.541000Z");
}

TEST(RepodataState, RejectsBrokenStateFiles) {
  EXPECT_FALSE(repodata::parse_state("not json"));
  EXPECT_FALSE(repodata::parse_state("[]"));
  EXPECT_FALSE(repodata::parse_state(R"({"url": "x"})"));  // no size / mtime_ns
}

TEST(RepodataState, CacheControlMaxAge) {
  EXPECT_EQ(repodata::cache_control_max_age("public, max-age=1200"), 1200s);
  EXPECT_EQ(repodata::cache_control_max_age("max-age=\"60\""), 60s);
  EXPECT_EQ(repodata::cache_control_max_age("no-cache"), 0s);
  EXPECT_EQ(repodata::cache_control_max_age("public, no-store, max-age=99"), 0s);
  EXPECT_EQ(repodata::cache_control_max_age("public"), std::nullopt);
  EXPECT_EQ(repodata::cache_control_max_age(""), std::nullopt);
}

TEST(RepodataState, Freshness) {
  RepodataState state;
  state.cache_control = "max-age=60";
  const auto now = std::chrono::system_clock::now();
  state.refreshed = now - 30s;
  EXPECT_TRUE(repodata::is_fresh(state, std::nullopt, now));
  EXPECT_FALSE(repodata::is_fresh(state, 10s, now));
  EXPECT_FALSE(repodata::is_fresh(state, 0s, now));
  state.refreshed = now - 90s;
  EXPECT_FALSE(repodata::is_fresh(state, std::nullopt, now));
  EXPECT_TRUE(repodata::is_fresh(state, 3600s, now));
  state.refreshed = now + 3600s;  // a clock that went backwards: not fresh
  EXPECT_FALSE(repodata::is_fresh(state, 7200s, now));
}

TEST(RepodataCache, LoadTrustsOnlyAStateDescribingTheFile) {
  ScratchDir scratch;
  const RepodataCache cache(scratch.path());
  const std::string url = "https://example.com/ch/linux-64/";
  EXPECT_FALSE(cache.load(url));

  auto file = cache.begin_write(url);
  ASSERT_TRUE(file) << file.error();
  ASSERT_TRUE(file->write("{}"));
  RepodataState state;
  state.url = url + "repodata.json";
  state.etag = "\"e\"";
  ASSERT_TRUE(cache.store(url, std::move(*file), state));
  auto loaded = cache.load(url);
  ASSERT_TRUE(loaded);
  ASSERT_TRUE(loaded->state);
  EXPECT_EQ(loaded->state->etag, "\"e\"");
  EXPECT_EQ(loaded->state->size, 2u);

  spit(cache.json_path(url), "{ }");  // changed behind the cache's back
  loaded = cache.load(url);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(loaded->state);

  // A state of another URL (an 8-hex key collision) is not trusted either.
  auto other = cache.begin_write(url);
  ASSERT_TRUE(other->write("{}"));
  state.url = "https://elsewhere.org/x/noarch/repodata.json";
  ASSERT_TRUE(cache.store(url, std::move(*other), state));
  EXPECT_FALSE(cache.load(url)->state);
}

TEST(RepodataCache, UncommittedPartialFileLeavesNothingBehind) {
  ScratchDir scratch;
  {
    auto file = repodata::PartialFile::create_beside(scratch.path() / "x.json");
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->write("{\"half"));
    EXPECT_TRUE(std::filesystem::exists(file->temp_path()));
  }
  EXPECT_TRUE(std::filesystem::is_empty(scratch.path()));
}

TEST(RepodataLocation, NormalisesUrlsAndPaths) {
  auto http = repodata::SubdirLocation::parse("https://conda.anaconda.org/conda-forge/linux-64");
  ASSERT_TRUE(http);
  EXPECT_FALSE(http->is_local());
  EXPECT_EQ(http->url(), "https://conda.anaconda.org/conda-forge/linux-64/");
  EXPECT_EQ(http->subdir_name(), "linux-64");
  EXPECT_EQ(http->repodata_url(true), "https://conda.anaconda.org/conda-forge/linux-64/repodata.json.zst");

  auto path = repodata::SubdirLocation::parse("/srv/my channel/noarch/");
  ASSERT_TRUE(path);
  EXPECT_TRUE(path->is_local());
  EXPECT_EQ(path->local_dir(), "/srv/my channel/noarch");
  EXPECT_EQ(path->url(), "file:///srv/my%20channel/noarch/");
  EXPECT_EQ(path->subdir_name(), "noarch");

  auto file_url = repodata::SubdirLocation::parse("file://localhost/srv/my%20channel/noarch");
  ASSERT_TRUE(file_url);
  EXPECT_EQ(file_url->local_dir(), "/srv/my channel/noarch");
  EXPECT_EQ(file_url->url(), path->url());

  auto relative = repodata::SubdirLocation::parse("channel/linux-64");
  ASSERT_TRUE(relative);
  EXPECT_TRUE(relative->local_dir().is_absolute());

  EXPECT_FALSE(repodata::SubdirLocation::parse(""));
  EXPECT_FALSE(repodata::SubdirLocation::parse("ftp://host/ch/linux-64"));
  EXPECT_FALSE(repodata::SubdirLocation::parse("file://server/share/linux-64"));
}

}  // namespace
}  // namespace gpuenv::testing
