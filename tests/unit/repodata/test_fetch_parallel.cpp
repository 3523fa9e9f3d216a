// Many subdirs at once: transfers really overlap, max_parallel caps them,
// and the same subdir requested twice is fetched once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "fetch_fixture.hpp"

namespace gpuenv::testing {
namespace {

using FetchParallel = FetchTest;
using Clock = std::chrono::steady_clock;

// The most requests the server was handling at one moment. A small slack
// ignores a handler that has sent everything but not yet logged its end.
std::size_t peak_concurrency(const std::vector<ServedRequest>& served, double slack = 0.03) {
  std::size_t peak = 0;
  for (const auto& at : served) {
    const auto overlapping = std::count_if(served.begin(), served.end(), [&](const auto& other) {
      return other.start <= at.start && at.start < other.end - slack;
    });
    peak = std::max(peak, static_cast<std::size_t>(overlapping));
  }
  return peak;
}

TEST_F(FetchParallel, EightSubdirsOverlapInsteadOfQueueing) {
  constexpr int kSubdirs = 8;
  constexpr double kLatency = 0.3;
  std::vector<repodata::RepodataRequest> requests;
  for (int i = 0; i < kSubdirs; ++i) {
    const std::string channel = "channel" + std::to_string(i);
    publish(channel, "linux-64", sample_repodata("linux-64", 200));
    requests.push_back({subdir_url(channel, "linux-64"), channel});
  }
  server().set_latency(kLatency);

  const auto started = Clock::now();
  const auto results = repodata::fetch_repodata(requests, options());
  const auto elapsed = std::chrono::duration<double>(Clock::now() - started).count();
  for (const auto& result : results) EXPECT_TRUE(result) << describe(result);

  const auto served = server().requests();
  ASSERT_EQ(served.size(), static_cast<std::size_t>(kSubdirs));
  const std::size_t peak = peak_concurrency(served);
  const auto [first, last] = std::minmax_element(
      served.begin(), served.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  std::printf("[ measured ] %d subdirs, %.0f ms latency each: %.0f ms in all "
              "(one at a time: >= %.0f ms); requests arrived within %.0f ms; peak concurrency %zu\n",
              kSubdirs, kLatency * 1000, elapsed * 1000, kSubdirs * kLatency * 1000,
              (last->start - first->start) * 1000, peak);
  // Generous bounds: the proof is the server seeing them at once, the time
  // check only has to rule out one-at-a-time.
  EXPECT_GE(peak, 4u);
  EXPECT_LT(elapsed, kSubdirs * kLatency * 0.75);
}

TEST_F(FetchParallel, MaxParallelCapsTheTransfersInFlight) {
  std::vector<repodata::RepodataRequest> requests;
  for (int i = 0; i < 6; ++i) {
    const std::string channel = "channel" + std::to_string(i);
    publish(channel, "noarch", sample_repodata("noarch", 20));
    requests.push_back({subdir_url(channel, "noarch"), channel});
  }
  server().set_latency(0.2);
  auto options = this->options();
  options.max_parallel = 2;
  const auto results = repodata::fetch_repodata(requests, options);
  for (const auto& result : results) EXPECT_TRUE(result) << describe(result);
  const auto served = server().requests();
  ASSERT_EQ(served.size(), 6u);
  EXPECT_LE(peak_concurrency(served), 2u);
}

TEST_F(FetchParallel, FallbacksAndRetriesRunAlongsideOtherTransfers) {
  publish("a", "linux-64", sample_repodata("linux-64", 20), Publish::json_only);
  publish("b", "linux-64", sample_repodata("linux-64", 20));
  publish("c", "linux-64", sample_repodata("linux-64", 20));
  server().fail_with_status(path_of("c", "linux-64", "repodata.json.zst"), 500, 2);
  const auto results = repodata::fetch_repodata({{subdir_url("a", "linux-64"), "a"},
                                                 {subdir_url("b", "linux-64"), "b"},
                                                 {subdir_url("c", "linux-64"), "c"}},
                                                options());
  for (const auto& result : results) EXPECT_TRUE(result) << describe(result);
  EXPECT_EQ(results[0]->source_url, subdir_url("a", "linux-64") + "repodata.json");
  EXPECT_EQ(results[2]->source_url, subdir_url("c", "linux-64") + "repodata.json.zst");
}

TEST_F(FetchParallel, TheSameSubdirRequestedTwiceIsFetchedOnce) {
  publish("ch", "linux-64", sample_repodata("linux-64", 20));
  std::string without_slash = subdir_url("ch", "linux-64");
  without_slash.pop_back();
  const auto results = repodata::fetch_repodata(
      {{subdir_url("ch", "linux-64"), "ch"}, {without_slash, "ch"}}, options());
  ASSERT_EQ(results.size(), 2u);
  ASSERT_TRUE(results[0]) << describe(results[0]);
  ASSERT_TRUE(results[1]) << describe(results[1]);
  EXPECT_EQ(results[0]->json_path, results[1]->json_path);
  EXPECT_EQ(server().requests().size(), 1u);
}

}  // namespace
}  // namespace gpuenv::testing
