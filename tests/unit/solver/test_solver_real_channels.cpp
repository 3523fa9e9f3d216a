// Solves on real channel indexes from ../shared/testdata (conda's test-recipe
// channel, conda's index4 test index, the defaults r channel), compared with
// results derived by hand from the records (noted beside each expectation).
#include <gtest/gtest.h>

#include "solver_fixture.hpp"

namespace gpuenv::solver {
namespace {

using testing::add_testdata;
using testing::dists;
using testing::install;
using testing::joined_lines;

class TestRecipesChannel : public ::testing::Test {
 protected:
  void SetUp() override {
    add_testdata(database, "channels/conda-test-recipes/noarch/repodata.json", "file:///test-recipes", "noarch");
  }
  PackageDatabase database;
};

TEST_F(TestRecipesChannel, PicksTheNewestConsistentVersions) {
  // dependent 2.0 needs dependency >=2.0,<3.0a0: dependency 2.0.
  const auto solution = solve(database, install({"dependent"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"dependency 2.0 0", "dependent 2.0 0"}));
  EXPECT_TRUE(solution->unlink.empty());
}

TEST_F(TestRecipesChannel, FollowsAnOlderRequestDownItsDependencies) {
  // dependent 1.0 needs dependency >=1.0,<2.0a0: only dependency 1.0 fits.
  const auto solution = solve(database, install({"dependent=1.0"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"dependency 1.0 0", "dependent 1.0 0"}));
}

TEST_F(TestRecipesChannel, ResolvesATwoLevelChain) {
  // another_dependent 2.0 -> dependent (2.0) -> dependency >=2.0,<3.0a0 (2.0).
  const auto solution = solve(database, install({"another_dependent"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"another_dependent 2.0 0", "dependency 2.0 0",
                                                             "dependent 2.0 0"}));
}

TEST_F(TestRecipesChannel, OrdersDependenciesBeforeTheirDependents) {
  const auto solution = solve(database, install({"another_dependent"}));
  ASSERT_TRUE(solution);
  ASSERT_EQ(solution->link.size(), 3u);
  EXPECT_EQ(solution->link[0].name, "dependency");
  EXPECT_EQ(solution->link[1].name, "dependent");
  EXPECT_EQ(solution->link[2].name, "another_dependent");
}

TEST_F(TestRecipesChannel, ConflictingRequestsAreExplained) {
  // dependent 1.0 needs dependency <2.0a0, but dependency 2.0 is asked for.
  const auto solution = solve(database, install({"dependent=1.0", "dependency=2.0"}));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("dependent 1.0"), std::string::npos) << text;
  EXPECT_NE(text.find("dependency >=1.0,<2.0a0"), std::string::npos) << text;
  EXPECT_NE(text.find("dependency 2.0"), std::string::npos) << text;
}

TEST_F(TestRecipesChannel, ConstrainsRestrictWithoutInstalling) {
  // run_constrained constrains dependency>=2.0 but does not depend on it.
  const auto alone = solve(database, install({"run_constrained"}));
  ASSERT_TRUE(alone) << joined_lines(alone.error());
  EXPECT_EQ(dists(alone->link), std::vector<std::string>{"run_constrained 1.0 0"});

  const auto with_old = solve(database, install({"run_constrained", "dependency=1.0"}));
  ASSERT_FALSE(with_old);
  const auto text = joined_lines(with_old.error());
  EXPECT_NE(text.find("constrains dependency >=2.0"), std::string::npos) << text;
}

TEST_F(TestRecipesChannel, ExplainsARequirementNoVersionSatisfies) {
  // unsatisfiable 1.0 needs versioned <1.0; versioned exists as 1.0 and 2.0.
  const auto solution = solve(database, install({"unsatisfiable"}));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("cannot install unsatisfiable"), std::string::npos) << text;
  EXPECT_NE(text.find("needs versioned <1.0, but no version of versioned matches (there is 2.0, 1.0)"),
            std::string::npos)
      << text;
}

TEST_F(TestRecipesChannel, ASpecNothingMatchesFailsBeforeSolving) {
  const auto unknown = solve(database, install({"no-such-package"}));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().summary(), "no package named no-such-package is in the channels");
  const auto too_new = solve(database, install({"dependency>=3"}));
  ASSERT_FALSE(too_new);
  EXPECT_EQ(too_new.error().summary(), "dependency has no build matching dependency>=3 (newest versions: 2.0, 1.0)");
}

TEST_F(TestRecipesChannel, BuildVariantsFollowTheirDependencies) {
  // buildstring 1.0 has two builds of equal build number: versioned_1 needs
  // versioned 1.*, versioned_2 needs versioned 2.*; the one whose
  // dependency allows the newer version wins.
  const auto solution = solve(database, install({"buildstring"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link),
            (std::vector<std::string>{"buildstring 1.0 versioned_2", "versioned 2.0 0"}));
}

TEST(CondaIndex4, SolvesPython36LikeConda) {
  // Derived from legacy-index/index4.json: python 3.6.6 is the newest 3.6;
  // every dependency takes its newest version and build number in range;
  // readline 7.0 has two builds numbered 4 with identical shared
  // dependencies, so the newer timestamp (ha6073c6_4) wins; sqlite 3.24.0
  // pulls libedit >=3.1.20170329; openssl pulls ca-certificates.
  PackageDatabase database;
  add_testdata(database, "repodata/conda-tests/legacy-index/index4.json", "https://repo.example/main", "linux-64");
  const auto solution = solve(database, install({"python 3.6.*"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{
                                       "ca-certificates 2018.03.07 0",
                                       "libedit 3.1.20170329 h6b74fdf_2",
                                       "libffi 3.2.1 hd88cf55_4",
                                       "libgcc-ng 8.2.0 hdf63c60_0",
                                       "libstdcxx-ng 8.2.0 hdf63c60_0",
                                       "ncurses 6.1 hf484d3e_0",
                                       "openssl 1.0.2p h14c3975_0",
                                       "python 3.6.6 hc3d631a_0",
                                       "readline 7.0 ha6073c6_4",
                                       "sqlite 3.24.0 h84994c4_0",
                                       "tk 8.6.7 hc745277_3",
                                       "xz 5.2.4 h14c3975_4",
                                       "zlib 1.2.11 ha838bed_2",
                                   }));
}

TEST(DefaultsRChannel, HigherBuildNumberWinsAmongEqualVersions) {
  // _r-mutex 1.0.0 exists as anacondar_1 (build 1) and mro_2 (build 2).
  PackageDatabase database;
  add_testdata(database, "repodata/conda-tests/r_linux-64.json", "https://repo.anaconda.com/pkgs/r", "linux-64");
  const auto newest = solve(database, install({"_r-mutex"}));
  ASSERT_TRUE(newest) << joined_lines(newest.error());
  EXPECT_EQ(dists(newest->link), std::vector<std::string>{"_r-mutex 1.0.0 mro_2"});
  const auto by_build = solve(database, install({"_r-mutex=*=anacondar*"}));
  ASSERT_TRUE(by_build) << joined_lines(by_build.error());
  EXPECT_EQ(dists(by_build->link), std::vector<std::string>{"_r-mutex 1.0.0 anacondar_1"});
}

TEST(DefaultsRChannel, MissingDependenciesOutsideTheChannelAreExplained) {
  // r-base needs packages that live in pkgs/main (libgcc-ng, cairo, ...),
  // which this channel alone does not have.
  PackageDatabase database;
  add_testdata(database, "repodata/conda-tests/r_linux-64.json", "https://repo.anaconda.com/pkgs/r", "linux-64");
  const auto solution = solve(database, install({"r-base=3.5.0"}));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("cannot install r-base=3.5.0"), std::string::npos) << text;
  EXPECT_NE(text.find("in none of the channels"), std::string::npos) << text;
}

TEST(CondaFormatRepo, LinksTheCondaArchiveWithItsUrlAndChecksum) {
  PackageDatabase database;
  add_testdata(database, "channels/conda-format-repo/linux-64/repodata.json", "file:///repo", "linux-64");
  add_testdata(database, "channels/conda-format-repo/noarch/repodata.json", "file:///repo", "noarch");
  const auto solution = solve(database, install({"zlib"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  ASSERT_EQ(solution->link.size(), 2u);
  const auto& zlib = solution->link[1];
  EXPECT_EQ(zlib.name, "zlib");
  EXPECT_EQ(zlib.fn, "zlib-1.2.11-h7b6447c_3.conda");
  EXPECT_EQ(zlib.url, "file:///repo/linux-64/zlib-1.2.11-h7b6447c_3.conda");
  EXPECT_EQ(zlib.sha256, "f33afff2144e1d6c4cf2e3e184937db8bf825b4537df74662aea5ee207b6a31b");
  EXPECT_EQ(zlib.channel, "file:///repo");
  EXPECT_EQ(zlib.subdir, "linux-64");
  EXPECT_EQ(solution->link[0].name, "libgcc-ng");
  EXPECT_EQ(solution->link[0].fn, "libgcc-ng-8.2.0-hdf63c60_1.tar.bz2");
}

}  // namespace
}  // namespace gpuenv::solver
