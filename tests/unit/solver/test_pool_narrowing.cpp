// Pool narrowing (pool_narrowing.hpp) leaves out only what no solution can
// contain, so every answer -- the packages, their order, and for a request
// that cannot be satisfied the explanation -- is the one a solve over the
// whole pool gives.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "solver_fixture.hpp"

namespace gpuenv::solver {
namespace {

using testing::add_testdata;
using testing::install;
using testing::joined_lines;

// The whole answer, in order: "name version build" per package to link,
// or the explanation's lines.
std::string answer(const std::expected<Solution, Unsolvable>& solved) {
  if (!solved) return "unsatisfiable:\n" + joined_lines(solved.error());
  std::string text;
  for (const auto& record : solved->link) text += record.name + " " + record.version + " " + record.build + "\n";
  return text;
}

void expect_same_answers(PackageDatabase& database, const std::vector<std::vector<std::string>>& requests,
                         ChannelPriority priority = ChannelPriority::flexible) {
  for (const auto& specs : requests) {
    auto request = install(specs);
    request.channel_priority = priority;
    request.narrow_pool = false;
    const auto whole = answer(solve(database, request));
    request.narrow_pool = true;
    const auto narrowed = answer(solve(database, request));
    EXPECT_EQ(narrowed, whole) << ::testing::PrintToString(specs);
    // Solving again over the same database gives the same answer: the pool
    // was given back whole.
    request.narrow_pool = false;
    EXPECT_EQ(answer(solve(database, request)), whole) << ::testing::PrintToString(specs);
  }
}

TEST(PoolNarrowing, AnswersAsTheWholePoolOnTheDefaults2018Index) {
  PackageDatabase database;
  add_testdata(database, "repodata/conda-tests/legacy-index/index4.json", "https://repo.example/main", "linux-64");
  expect_same_answers(database, {
                                    {"python 3.6.*"},
                                    {"numpy", "python=2.7"},
                                    {"scipy", "pandas", "python=3.5"},
                                    {"dask", "distributed", "python=3.6"},
                                    {"conda-build", "python=3.6"},
                                    {"numpy 1.11.*", "matplotlib", "python=3.5"},
                                    {"numpy >=1.15", "python=2.6"},  // unsatisfiable
                                    {"bokeh", "numpy <1.9", "python 3.6.*"},
                                    {"r-essentials"},
                                });
}

TEST(PoolNarrowing, AnswersAsTheWholePoolUnderStrictChannelPriority) {
  PackageDatabase database;
  add_testdata(database, "repodata/conda-tests/legacy-index/index4.json", "https://repo.example/main", "linux-64", 0);
  add_testdata(database, "repodata/conda-tests/r_linux-64.json", "https://repo.example/r", "linux-64", 1);
  expect_same_answers(database, {{"r-base"}, {"r-essentials", "python=3.6"}, {"numpy", "python=3.6"}},
                      ChannelPriority::strict);
  expect_same_answers(database, {{"r-base"}, {"r-essentials", "python=3.6"}}, ChannelPriority::flexible);
}

TEST(PoolNarrowing, AnUninstallableBuildStillHidesALowerChannelUnderStrictPriority) {
  // The first channel's foo needs a package no channel has; strict priority
  // still hides the second channel's foo, so the request fails, as it does
  // over the whole pool (and as conda says).
  PackageDatabase database;
  database.add_records({testing::package("foo", "1.0", "0", 0, {"missing-dependency"})},
                       testing::channel_subdir("file:///a", "linux-64", 0));
  database.add_records({testing::package("foo", "2.0", "0", 0)}, testing::channel_subdir("file:///b", "linux-64", 1));
  expect_same_answers(database, {{"foo"}}, ChannelPriority::strict);
  auto request = install({"foo"});
  request.channel_priority = ChannelPriority::strict;
  EXPECT_FALSE(solve(database, request));
  request.channel_priority = ChannelPriority::flexible;
  EXPECT_TRUE(solve(database, request));
}

}  // namespace
}  // namespace gpuenv::solver
