// Dependencies in records are read as conda reads them, also where
// libsolv's own parser would read them otherwise (issue 10): legacy and R
// channels write parenthesised groups, which conda drops, and pinning tools
// write `===`, which conda reads as `==`.
#include <gtest/gtest.h>

#include "solver_fixture.hpp"

namespace gpuenv::solver {
namespace {

using testing::dists;
using testing::install;
using testing::joined_lines;
using testing::package;

TEST(CondaDependencyGrammar, AParenthesisedGroupIsDroppedAsInConda) {
  // conda: `dask (>=0.9)` is `dask`, so dask 0.8.0 satisfies it.
  PackageDatabase database;
  database.add_records({package("app", "1.0", "0", 0, {"dask (>=0.9)", "r (optional)"}), package("dask", "0.8.0"),
                        package("r", "3.4.1")},
                       testing::channel_subdir("file:///c", "linux-64"));
  const auto solution = solve(database, install({"app"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"app 1.0 0", "dask 0.8.0 0", "r 3.4.1 0"}));
}

TEST(CondaDependencyGrammar, TripleEqualsIsAnExactVersion) {
  // conda: `x===1.0` is `x==1.0`; 1.0.1 does not match (a prefix reading would take it).
  PackageDatabase database;
  database.add_records({package("app", "1.0", "0", 0, {"x===1.0"}), package("x", "1.0"), package("x", "1.0.1")},
                       testing::channel_subdir("file:///c", "linux-64"));
  const auto solution = solve(database, install({"app"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"app 1.0 0", "x 1.0 0"}));
}

}  // namespace
}  // namespace gpuenv::solver
