// Legacy `features` / `track_features` and conda's objective order
// (resolve.py's Resolve.solve), on small channels written after the defaults
// indexes of 2017 and 2018 where gpuenv answered differently from conda
// (issue 10). Every expected answer here is what conda's own Resolve (the
// oracle copy in ../shared/oracle, with pycosat) gives on the same records.
#include <gtest/gtest.h>

#include "solver_fixture.hpp"

namespace gpuenv::solver {
namespace {

using testing::channel_subdir;
using testing::dists;
using testing::install;
using testing::joined_lines;
using testing::package;

specs::PackageRecord with_features(specs::PackageRecord record, std::vector<std::string> features) {
  record.features = std::move(features);
  return record;
}

specs::PackageRecord tracking(specs::PackageRecord record, std::vector<std::string> track_features) {
  record.track_features = std::move(track_features);
  return record;
}

specs::PackageRecord stamped(specs::PackageRecord record, std::uint64_t timestamp) {
  record.timestamp = timestamp;
  return record;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// numpy 1.13.1 as the defaults index of 2017 has it: an mkl build and a
// `features: nomkl` build, equal in version and build number; `nomkl` is the
// package that tracks the feature.
class Defaults2017 : public ::testing::Test {
 protected:
  void SetUp() override {
    database.add_records(
        {
            package("numpy", "1.13.1", "py36_0", 0, {"mkl >=2017.0.3", "python 3.6*"}),
            with_features(package("numpy", "1.13.1", "py36_nomkl_0", 0, {"openblas 0.2.19", "python 3.6*"}),
                          {"nomkl"}),
            package("mkl", "2017.0.3"),
            package("openblas", "0.2.19", "1", 1),
            tracking(package("nomkl", "1.0"), {"nomkl"}),
            package("python", "3.6.1", "2", 2),
        },
        channel_subdir("https://repo.example/pkgs/free", "linux-64"));
  }
  PackageDatabase database;
};

TEST_F(Defaults2017, AFeaturedBuildIsNotChosenWithoutItsTracker) {
  // conda, rattler and micromamba: numpy-1.13.1-py36_0 + mkl. A byte-wise
  // build-string tie-break took "py36_nomkl_0" > "py36_0".
  const auto solution = solve(database, install({"numpy"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  const auto linked = dists(solution->link);
  EXPECT_TRUE(has(linked, "numpy 1.13.1 py36_0")) << ::testing::PrintToString(linked);
  EXPECT_TRUE(has(linked, "mkl 2017.0.3 0")) << ::testing::PrintToString(linked);
  EXPECT_FALSE(has(linked, "nomkl 1.0 0")) << ::testing::PrintToString(linked);
  EXPECT_FALSE(has(linked, "openblas 0.2.19 1")) << ::testing::PrintToString(linked);
}

TEST_F(Defaults2017, RequestingTheTrackerPrefersTheFeaturedBuild) {
  const auto solution = solve(database, install({"numpy", "nomkl"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  const auto linked = dists(solution->link);
  EXPECT_TRUE(has(linked, "numpy 1.13.1 py36_nomkl_0")) << ::testing::PrintToString(linked);
  EXPECT_TRUE(has(linked, "openblas 0.2.19 1")) << ::testing::PrintToString(linked);
  EXPECT_FALSE(has(linked, "mkl 2017.0.3 0")) << ::testing::PrintToString(linked);
}

TEST_F(Defaults2017, AskingForTheFeaturedBuildBringsItsTracker) {
  // resolve.py: a record's `features` entry is a dependency on a package
  // that tracks the feature.
  const auto solution = solve(database, install({"numpy=1.13.1=py36_nomkl_0"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  const auto linked = dists(solution->link);
  EXPECT_TRUE(has(linked, "nomkl 1.0 0")) << ::testing::PrintToString(linked);
}

TEST(LegacyFeatures, AFeaturedBuildWithNoTrackerInTheChannelsIsNotInstallable) {
  PackageDatabase database;
  database.add_records({with_features(package("faiss-gpu", "1.5.0", "py36_cuda92_1", 1), {"cuda92"}),
                        package("faiss-gpu", "1.4.0", "py36_cuda90_0")},
                       channel_subdir("https://conda.anaconda.org/pytorch", "linux-64"));
  const auto plain = solve(database, install({"faiss-gpu"}));
  ASSERT_TRUE(plain) << joined_lines(plain.error());
  EXPECT_EQ(dists(plain->link), std::vector<std::string>{"faiss-gpu 1.4.0 py36_cuda90_0"});

  const auto asked = solve(database, install({"faiss-gpu=1.5.0"}));
  ASSERT_FALSE(asked);
  const auto text = joined_lines(asked.error());
  EXPECT_NE(text.find("tracks the feature cuda92"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x02'), std::string::npos) << text;
}

// conda maximises the requested packages' versions before it minimises
// track_features (resolve.py: eq_req_v before eq_feature_count).
// The 2018 defaults index: numpy's mkl and openblas builds share version and
// build number, and the openblas one needs `blas * openblas`, which tracks
// nomkl. conda minimises track_features before the package count.
TEST(ObjectiveOrder, ABuildWhoseDependencyTracksAFeatureComesAfterOneWhoseDoesNot) {
  PackageDatabase database;
  database.add_records(
      {
          package("numpy", "1.15.0", "py37_mkl_0", 0, {"blas 1.0 mkl", "mkl", "mkl_fft"}),
          package("numpy", "1.15.0", "py37_openblas_0", 0, {"blas 1.0 openblas"}),
          package("blas", "1.0", "mkl"),
          tracking(package("blas", "1.0", "openblas"), {"nomkl"}),
          package("mkl", "2018.0.3", "1", 1),
          package("mkl_fft", "1.0.4"),
      },
      channel_subdir("https://repo.example/pkgs/main", "linux-64"));
  const auto solution = solve(database, install({"numpy"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"blas 1.0 mkl", "mkl 2018.0.3 1", "mkl_fft 1.0.4 0",
                                                             "numpy 1.15.0 py37_mkl_0"}));
}

// conda's feature metric comes before the dependencies' versions: with nomkl
// on, a featureless numpy counts against the solution, so the older
// featured build wins.
TEST(ObjectiveOrder, AnActiveFeatureComesBeforeADependencysNewerVersion) {
  PackageDatabase database;
  database.add_records(
      {
          package("app", "1.0", "0", 0, {"numpy"}),
          package("numpy", "1.15.0", "py37_0", 0, {"openblas"}),
          with_features(package("numpy", "1.14.2", "py36_nomkl_1", 1, {"openblas"}), {"nomkl"}),
          package("openblas", "0.2.20"),
          tracking(package("nomkl", "1.0"), {"nomkl"}),
      },
      channel_subdir("https://repo.example/pkgs/main", "linux-64"));
  const auto solution = solve(database, install({"app", "nomkl"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"app 1.0 0", "nomkl 1.0 0", "numpy 1.14.2 py36_nomkl_1",
                                                             "openblas 0.2.20 0"}));
}

TEST(ObjectiveOrder, ARequestedPackagesVersionComesBeforeFewerTrackFeatures) {
  PackageDatabase database;
  database.add_records(
      {
          tracking(package("nomkl", "3.0"), {"nomkl"}),
          package("nomkl", "2.0"),
          package("numpy", "1.14.0", "py36_0", 0, {"mkl"}),
          with_features(package("numpy", "1.14.0", "py36_nomkl_0", 0, {"openblas"}), {"nomkl"}),
          package("mkl", "2018.0.1"),
          package("openblas", "0.2.20"),
      },
      channel_subdir("https://repo.example/pkgs/main", "linux-64"));
  const auto alone = solve(database, install({"nomkl"}));
  ASSERT_TRUE(alone) << joined_lines(alone.error());
  EXPECT_EQ(dists(alone->link), std::vector<std::string>{"nomkl 3.0 0"});
  // The requested BLAS, where fewer track_features first gave nomkl 2.0 +
  // the mkl numpy.
  const auto solution = solve(database, install({"numpy", "nomkl"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link),
            (std::vector<std::string>{"nomkl 3.0 0", "numpy 1.14.0 py36_nomkl_0", "openblas 0.2.20 0"}));
}

TEST(ObjectiveOrder, ARequestedPackagesTrackFeaturesComeBeforeItsBuildNumber) {
  // resolve.py: eq_feature_count before eq_req_b.
  PackageDatabase database;
  database.add_records({tracking(package("foo", "1.0", "f_1", 1), {"f"}), package("foo", "1.0", "plain_0", 0)},
                       channel_subdir("https://repo.example/main", "linux-64"));
  const auto solution = solve(database, install({"foo"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"foo 1.0 plain_0"});
}

TEST(ObjectiveOrder, ADependencysTrackFeaturesComeBeforeItsVersion) {
  PackageDatabase database;
  database.add_records({tracking(package("blas", "2.0", "mkl"), {"blas_mkl"}), package("blas", "1.0", "openblas"),
                        package("app", "1.0", "0", 0, {"blas"})},
                       channel_subdir("https://repo.example/main", "linux-64"));
  const auto solution = solve(database, install({"app"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"app 1.0 0", "blas 1.0 openblas"}));
}

TEST(ObjectiveOrder, FewerPackagesComeBeforeANewerTimestamp) {
  // Two builds equal in version and build number: conda prunes the package
  // count (generate_package_count) before it maximises timestamps.
  PackageDatabase database;
  database.add_records({stamped(package("tool", "1.0", "h_new", 0, {"libx", "liby"}), 1'600'000'000'000),
                        stamped(package("tool", "1.0", "h_old", 0, {"libx"}), 1'500'000'000'000),
                        package("libx", "1.0"), package("liby", "1.0")},
                       channel_subdir("https://repo.example/main", "linux-64"));
  const auto solution = solve(database, install({"tool"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"libx 1.0 0", "tool 1.0 h_old"}));
}

TEST(ObjectiveOrder, EqualBuildsFallToTheNewerTimestampNotTheBuildString) {
  PackageDatabase database;
  database.add_records({stamped(package("tool", "1.0", "zzz_0", 0, {"libx"}), 1'500'000'000'000),
                        stamped(package("tool", "1.0", "aaa_0", 0, {"libx"}), 1'600'000'000'000),
                        package("libx", "1.0")},
                       channel_subdir("https://repo.example/main", "linux-64"));
  const auto solution = solve(database, install({"tool"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"libx 1.0 0", "tool 1.0 aaa_0"}));
}

}  // namespace
}  // namespace gpuenv::solver
