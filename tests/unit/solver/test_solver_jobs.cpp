// Channel priority, pins, track_features, update and remove jobs, on small
// hand-made channels whose answers follow directly from conda's rules.
#include <gtest/gtest.h>

#include "solver_fixture.hpp"

namespace gpuenv::solver {
namespace {

using testing::channel_subdir;
using testing::dists;
using testing::install;
using testing::joined_lines;
using testing::package;
using testing::specs_of;

// Channel A (first, preferred) has foo 1.0; channel B has foo 2.0.
class ChannelPriorityTest : public ::testing::Test {
 protected:
  void load(bool a_foo_is_broken) {
    std::vector<std::string> depends;
    if (a_foo_is_broken) depends.push_back("missing-lib");
    database.add_records({package("foo", "1.0", "0", 0, depends)}, channel_subdir("https://a.example/a", "linux-64", 0));
    database.add_records({package("foo", "2.0")}, channel_subdir("https://b.example/b", "linux-64", 1));
  }
  SolveRequest request(ChannelPriority priority) {
    auto result = install({"foo"});
    result.channel_priority = priority;
    return result;
  }
  PackageDatabase database;
};

TEST_F(ChannelPriorityTest, FlexibleAndStrictPreferTheFirstChannelOverANewerVersion) {
  load(false);
  for (const auto priority : {ChannelPriority::flexible, ChannelPriority::strict}) {
    const auto solution = solve(database, request(priority));
    ASSERT_TRUE(solution) << joined_lines(solution.error());
    ASSERT_EQ(solution->link.size(), 1u);
    EXPECT_EQ(solution->link[0].version, "1.0");
    EXPECT_EQ(solution->link[0].channel, "https://a.example/a");
  }
}

TEST_F(ChannelPriorityTest, DisabledPriorityTakesTheNewestVersion) {
  load(false);
  const auto solution = solve(database, request(ChannelPriority::disabled));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"foo 2.0 0"});
}

TEST_F(ChannelPriorityTest, FlexibleFallsBackToALowerChannelWhenTheFirstCannotWork) {
  load(true);
  const auto solution = solve(database, request(ChannelPriority::flexible));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"foo 2.0 0"});
}

TEST_F(ChannelPriorityTest, StrictNeverTakesANameFromALowerChannel) {
  load(true);
  const auto solution = solve(database, request(ChannelPriority::strict));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("strict channel priority"), std::string::npos) << text;
  EXPECT_NE(text.find("missing-lib"), std::string::npos) << text;
}

TEST(ChannelSpecs, AChannelQualifiedSpecOnlyTakesThatChannel) {
  PackageDatabase database;
  database.add_records({package("foo", "1.0")}, channel_subdir("https://conda.anaconda.org/first", "linux-64", 0));
  database.add_records({package("foo", "2.0")}, channel_subdir("https://conda.anaconda.org/conda-forge", "linux-64", 1));
  const auto solution = solve(database, install({"conda-forge::foo"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"foo 2.0 0"});
}

class SmallChannel : public ::testing::Test {
 protected:
  void SetUp() override {
    database.add_records(
        {
            package("foo", "1.0", "0", 0, {"bar 1.*"}),
            package("foo", "2.0", "0", 0, {"bar >=2"}),
            package("bar", "1.0"),
            package("bar", "2.0"),
            package("baz", "1.0"),
            // blas 2.0 carries a track_feature.
            [] {
              auto record = package("blas", "2.0", "mkl", 0);
              record.track_features = {"blas_mkl"};
              return record;
            }(),
            package("blas", "1.0", "openblas", 0),
        },
        channel_subdir("https://repo.example/main", "linux-64"));
  }
  PackageDatabase database;
};

TEST_F(SmallChannel, TrackFeaturesAreDeprioritizedAfterARequestedVersion) {
  // conda maximises a requested package's version before it minimises
  // track_features (resolve.py); a dependency's track_features weigh first
  // (ObjectiveOrder tests).
  const auto plain = solve(database, install({"blas"}));
  ASSERT_TRUE(plain) << joined_lines(plain.error());
  EXPECT_EQ(dists(plain->link), std::vector<std::string>{"blas 2.0 mkl"});
  const auto older = solve(database, install({"blas <2"}));
  ASSERT_TRUE(older) << joined_lines(older.error());
  EXPECT_EQ(dists(older->link), std::vector<std::string>{"blas 1.0 openblas"});
  const auto asked = solve(database, install({"blas=*=mkl"}));
  ASSERT_TRUE(asked) << joined_lines(asked.error());
  EXPECT_EQ(dists(asked->link), std::vector<std::string>{"blas 2.0 mkl"});
}

TEST_F(SmallChannel, APinHoldsAPackageBackWithoutInstallingIt) {
  auto request = install({"foo"});
  request.pins = specs_of({"bar 1.*"});
  const auto solution = solve(database, request);
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"bar 1.0 0", "foo 1.0 0"}));

  auto unrelated = install({"baz"});
  unrelated.pins = specs_of({"bar 1.*"});
  const auto alone = solve(database, unrelated);
  ASSERT_TRUE(alone) << joined_lines(alone.error());
  EXPECT_EQ(dists(alone->link), std::vector<std::string>{"baz 1.0 0"});
}

TEST_F(SmallChannel, ARequestAgainstAPinIsExplained) {
  auto request = install({"bar>=2"});
  request.pins = specs_of({"bar 1.*"});
  const auto solution = solve(database, request);
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("bar 2.0 0 is ruled out by the pin bar 1.*"), std::string::npos) << text;
}

TEST_F(SmallChannel, InstallingNextToInstalledPackagesKeepsThem) {
  database.set_installed({package("foo", "1.0", "0", 0, {"bar 1.*"}), package("bar", "1.0")}, {});
  const auto solution = solve(database, install({"baz"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"baz 1.0 0"});
  EXPECT_TRUE(solution->unlink.empty());
}

TEST_F(SmallChannel, UpdateMovesAnInstalledPackageAndItsDependencies) {
  // foo 2.0 needs bar >=2: updating foo replaces both.
  database.set_installed({package("foo", "1.0", "0", 0, {"bar 1.*"}), package("bar", "1.0")}, {});
  SolveRequest request;
  request.update = specs_of({"foo"});
  const auto solution = solve(database, request);
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"bar 2.0 0", "foo 2.0 0"}));
  EXPECT_EQ(dists(solution->unlink), (std::vector<std::string>{"bar 1.0 0", "foo 1.0 0"}));
}

TEST_F(SmallChannel, UpdateAllMovesEverything) {
  database.set_installed({package("bar", "1.0"), package("baz", "1.0")}, {});
  SolveRequest request;
  request.update_all = true;
  const auto solution = solve(database, request);
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"bar 2.0 0"});
  EXPECT_EQ(dists(solution->unlink), std::vector<std::string>{"bar 1.0 0"});
}

TEST_F(SmallChannel, RemoveTakesTheDependentsAlong) {
  // foo needs bar: removing bar removes foo as conda does; baz stays.
  database.set_installed(
      {package("foo", "1.0", "0", 0, {"bar 1.*"}), package("bar", "1.0"), package("baz", "1.0")}, {});
  SolveRequest request;
  request.remove = specs_of({"bar"});
  const auto solution = solve(database, request);
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_TRUE(solution->link.empty());
  EXPECT_EQ(dists(solution->unlink), (std::vector<std::string>{"bar 1.0 0", "foo 1.0 0"}));
}

TEST_F(SmallChannel, RemovingWhatIsNotInstalledIsAnError) {
  database.set_installed({package("baz", "1.0")}, {});
  SolveRequest request;
  request.remove = specs_of({"bar"});
  const auto solution = solve(database, request);
  ASSERT_FALSE(solution);
  EXPECT_EQ(solution.error().summary(), "cannot remove bar: it is not installed");
}

TEST_F(SmallChannel, VirtualPackagesAreNeverLinkedOrUnlinked) {
  database.add_records({package("gpu-app", "1.0", "0", 0, {"__cuda >=12", "__glibc >=2.17"})},
                       channel_subdir("https://repo.example/gpu", "linux-64", 1));
  database.set_installed({}, {{"__cuda", "12.4", "0"}, {"__glibc", "2.36", "0"}});
  const auto solution = solve(database, install({"gpu-app"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"gpu-app 1.0 0"});
  EXPECT_TRUE(solution->unlink.empty());
}

TEST_F(SmallChannel, ASpecWithBracketsAndBuildNumberSelectsExactly) {
  database.add_records({package("qux", "1.0", "h1_0", 0), package("qux", "1.0", "h1_1", 1)},
                       channel_subdir("https://repo.example/more", "linux-64", 1));
  const auto solution = solve(database, install({"qux[build_number=0]"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"qux 1.0 h1_0"});
}

}  // namespace
}  // namespace gpuenv::solver
