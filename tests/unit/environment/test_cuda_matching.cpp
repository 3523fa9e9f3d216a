// Driver matching: which build of a CUDA package a machine gets, and how a
// driver that is too old, too new or missing is explained (the solver's
// failures worded with what detection found, as plan() composes them).
#include <gtest/gtest.h>

#include "../solver/solver_fixture.hpp"
#include "gpuenv/environment/target_machine.hpp"
#include "support/cuda_test_channel.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::environment {
namespace {

using solver::PackageDatabase;
using testing::dists;
using testing::install;
using testing::joined_lines;

class CudaMatching : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_cuda_test_channel(channel.path());
    const std::string url = "file://" + channel.path().string();
    for (const char* subdir : {"linux-64", "noarch"}) {
      const auto loaded =
          database.add_repodata(channel.path() / subdir / "repodata.json", testing::channel_subdir(url, subdir));
      ASSERT_TRUE(loaded) << loaded.error().message;
    }
  }

  // The machine: __cuda (and __cuda_arch) as given, plus a Linux host.
  void machine_with(std::optional<std::string> cuda, std::optional<std::string> cuda_arch = std::nullopt) {
    machine = system::MachineDescription{};
    machine.platform = "linux-64";
    if (cuda) machine.virtual_packages.push_back({"__cuda", *cuda, "0"});
    if (cuda_arch) machine.virtual_packages.push_back({"__cuda_arch", *cuda_arch, "0"});
    machine.virtual_packages.push_back({"__glibc", "2.36", "0"});
    machine.virtual_packages.push_back({"__linux", "6.1", "0"});
    database.set_installed({}, machine.virtual_packages);
  }

  testing::TempDirectory channel;
  PackageDatabase database;
  system::MachineDescription machine;
};

TEST_F(CudaMatching, ACuda13DriverGetsTheCuda13Build) {
  machine_with("13.0");
  const auto solution = solver::solve(database, install({"gpukit"}), solver_facts(machine));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link),
            (std::vector<std::string>{"cuda-version 13.0 hbd52c62_3", "gpukit 1.0 h7f3a9c1_0"}));
}

TEST_F(CudaMatching, ACuda124DriverGetsTheCuda126BuildThroughMinorVersionCompatibility) {
  // __cuda >=12 admits 12.4; the CUDA 13 build needs __cuda >=13.
  machine_with("12.4");
  const auto solution = solver::solve(database, install({"gpukit"}), solver_facts(machine));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link),
            (std::vector<std::string>{"cuda-version 12.6 h7480c83_3", "gpukit 1.0 hb2c41e0_0"}));
}

TEST_F(CudaMatching, ACuda12DriverStillGetsACuda11BuildWhenAskedFor) {
  machine_with("12.4");
  const auto solution = solver::solve(database, install({"gpukit", "cuda-version 11.*"}), solver_facts(machine));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link),
            (std::vector<std::string>{"cuda-version 11.8 h70ddcb2_3", "gpukit 1.0 hf0010aa_0"}));
}

TEST_F(CudaMatching, ACuda112DriverIsExplained) {
  machine_with("11.2");
  machine.cuda = system::CudaReport{};
  machine.cuda->status = system::DetectionStatus::ok;
  machine.cuda->driver_release = "460.32.03";
  const auto solution = solver::solve(database, install({"gpukit"}), solver_facts(machine));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("cannot install gpukit"), std::string::npos) << text;
  // The least demanding build (CUDA 11.8) names the driver it needs.
  EXPECT_NE(text.find("needs __cuda >=11.8 but this driver (460.32.03, CUDA 11.2) is too old: upgrade the driver "
                      "to >= 520.61.05 (CUDA 11.8)"),
            std::string::npos)
      << text;
  EXPECT_NE(solution.error().summary().find("upgrade the driver to >= 520.61.05"), std::string::npos)
      << solution.error().summary();
}

TEST_F(CudaMatching, ATooOldDriverWithAFittingOtherBuildSuggestsIt) {
  // CUDA 12.4 driver, CUDA 13 build asked for: cuda-version 12.* builds fit.
  machine_with("12.4");
  machine.cuda_override = "12.4";
  const auto solution = solver::solve(database, install({"gpukit=1.0=h7f3a9c1_0"}), solver_facts(machine));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("gpukit 1.0 h7f3a9c1_0 needs __cuda >=13 but the driver (CUDA 12.4, from "
                      "CONDA_OVERRIDE_CUDA) is too old: upgrade the driver to >= 580.65.06 (CUDA 13.0), "
                      "or ask for a CUDA 12 build (cuda-version 12.*)"),
            std::string::npos)
      << text;
}

TEST_F(CudaMatching, NoDriverNamesWhereDetectionLooked) {
  machine_with(std::nullopt);
  machine.cuda = system::CudaReport{};
  machine.cuda->status = system::DetectionStatus::no_library;
  machine.cuda->searched = {"libcuda.so.1 (loader search)", "/usr/lib/wsl/lib/libcuda.so.1"};
  const auto solution = solver::solve(database, install({"gpukit"}), solver_facts(machine));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("no NVIDIA driver found: looked in libcuda.so.1 (loader search), "
                      "/usr/lib/wsl/lib/libcuda.so.1; set CONDA_OVERRIDE_CUDA to solve for another machine"),
            std::string::npos)
      << text;
}

TEST_F(CudaMatching, ComputeCapabilityGatesTheGpuSpecificBuilds) {
  machine_with("12.4", "8.6");
  auto solution = solver::solve(database, install({"kernels"}), solver_facts(machine));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"kernels 2.0 sm80_0"});

  machine_with("12.4", "7.5");
  solution = solver::solve(database, install({"kernels"}), solver_facts(machine));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), std::vector<std::string>{"kernels 1.0 sm70_0"});

  machine_with("12.4", "6.1");
  machine.cuda = system::CudaReport{};
  machine.cuda->status = system::DetectionStatus::ok;
  machine.cuda->devices.push_back({0, "Tesla P4", {6, 1}, 0, "", ""});
  solution = solver::solve(database, install({"kernels"}), solver_facts(machine));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("needs __cuda_arch >=7.0 but the oldest GPU here has compute capability 6.1 (Tesla P4)"),
            std::string::npos)
      << text;
}

TEST_F(CudaMatching, AGpuBuildWithoutADetectedGpuIsExplained) {
  machine_with("12.4");  // a driver, but no device: no __cuda_arch
  const auto solution = solver::solve(database, install({"kernels"}), solver_facts(machine));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("but the driver sees no CUDA device"), std::string::npos) << text;
}

// conda's tests intend `constrains: [__cuda >=11.0,<12]` to be unsatisfiable
// on a CUDA 12 driver. The explanation must say the driver is too new (not
// "upgrade the driver"), call it a constraint, and keep each build's own
// bound instead of folding one into the other's.
TEST(CudaUpperBounds, AreExplainedAsADriverTooNewForTheConstraint) {
  PackageDatabase database;
  database.add_records({testing::package("oldkit", "1.0", "cuda11_0", 0, {}, {"__cuda >=11.0,<12"}),
                        testing::package("oldkit", "1.0", "cuda10_0", 0, {}, {"__cuda <11"})},
                       testing::channel_subdir("file:///c", "linux-64"));
  system::MachineDescription machine;
  machine.platform = "linux-64";
  machine.virtual_packages = {{"__cuda", "12.4", "0"}, {"__glibc", "2.36", "0"}};
  database.set_installed({}, machine.virtual_packages);
  const auto solution = solver::solve(database, install({"oldkit"}), solver_facts(machine));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_EQ(text.find("too old"), std::string::npos) << text;
  EXPECT_EQ(text.find("upgrade the driver"), std::string::npos) << text;
  EXPECT_NE(text.find("constrains __cuda >=11.0,<12 but this driver (CUDA 12.4) is newer than that allows"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("constrains __cuda <11 but this driver (CUDA 12.4) is newer than that allows"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace gpuenv::environment
