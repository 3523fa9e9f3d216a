// Driver matching end to end: `gpuenv create --dry-run` on a channel with
// one package built for CUDA 11.8, 12.6 and 13.0 (support/cuda_test_channel),
// with the driver given by CONDA_OVERRIDE_CUDA or by the fake libcuda.
#include <gtest/gtest.h>

#include <fstream>

#include "solve_cli_fixture.hpp"
#include "support/cuda_test_channel.hpp"

namespace {

using gpuenv::testing::linked;
using gpuenv::testing::parse_json;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::SolveCliMachine;

class CreateCuda : public ::testing::Test {
 protected:
  void SetUp() override { gpuenv::testing::write_cuda_test_channel(machine / "channel"); }

  gpuenv::testing::CommandOutput create(const std::vector<std::string>& specs, std::vector<std::string> env,
                                        bool json = true) {
    std::vector<std::string> args = {"create", "-p", (machine / "env").string(), "-c",
                                     (machine / "channel").string(), "--override-channels", "--dry-run"};
    if (json) args.push_back("--json");
    args.insert(args.end(), specs.begin(), specs.end());
    return run_gpuenv(args, machine.env(std::move(env)));
  }

  SolveCliMachine machine;
};

TEST_F(CreateCuda, Cuda130PicksTheCuda13Build) {
  const auto result = create({"gpukit"}, {"CONDA_OVERRIDE_CUDA=13.0"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked(parse_json(result)),
            (std::vector<std::string>{"cuda-version 13.0 hbd52c62_3", "gpukit 1.0 h7f3a9c1_0"}));
}

TEST_F(CreateCuda, Cuda124PicksTheCuda126BuildByMinorVersionCompatibility) {
  const auto result = create({"gpukit"}, {"CONDA_OVERRIDE_CUDA=12.4"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked(parse_json(result)),
            (std::vector<std::string>{"cuda-version 12.6 h7480c83_3", "gpukit 1.0 hb2c41e0_0"}));
}

TEST_F(CreateCuda, Cuda112FailsWithTheDriverExplanation) {
  const auto result = create({"gpukit"}, {"CONDA_OVERRIDE_CUDA=11.2"});
  EXPECT_EQ(result.exit_code, 1);
  const auto document = parse_json(result);
  EXPECT_EQ(document["success"], false);
  const auto error = document["error"].get<std::string>();
  EXPECT_NE(error.find("needs __cuda >=11.8 but the driver (CUDA 11.2, from CONDA_OVERRIDE_CUDA) is too old: "
                       "upgrade the driver to >= 520.61.05 (CUDA 11.8)"),
            std::string::npos)
      << error;
}

TEST_F(CreateCuda, NoDriverSaysWhereItLookedAndHowToSolveForAnotherMachine) {
  const auto result = create({"gpukit"}, {}, false);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("no NVIDIA driver found: looked in " + (machine / "no-driver/libcuda.so.1").string()),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("set CONDA_OVERRIDE_CUDA to solve for another machine"), std::string::npos)
      << result.err;
}

// conda-forge's CUDA packages constrain __cuda without needing it, so with
// no driver they install; gpuenv says once that their GPU code cannot run.
TEST_F(CreateCuda, CudaPackagesWithoutADriverAreNamedOnce) {
  auto result = create({"cuda-version=13"}, {}, false);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string note = "this environment gets CUDA packages (cuda-version 13.0), but their GPU code cannot run on "
                           "this machine";
  EXPECT_NE(result.err.find(note), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find(note), result.err.rfind(note)) << result.err;
  // --json keeps stdout a document and says it on stderr.
  result = create({"cuda-version=13"}, {});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NO_THROW(parse_json(result));
  EXPECT_NE(result.err.find(note), std::string::npos) << result.err;
  // CONDA_OVERRIDE_CUDA="" says "no GPU" on purpose; a driver that fits says nothing either.
  for (const char* cuda : {"CONDA_OVERRIDE_CUDA=", "CONDA_OVERRIDE_CUDA=13.0"}) {
    result = create({"cuda-version=13"}, {cuda}, false);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err.find("GPU code cannot run"), std::string::npos) << cuda << ": " << result.err;
  }
}

TEST_F(CreateCuda, ComputeCapabilityGatesBuildsTheSameWay) {
  auto result = create({"kernels"}, {"CONDA_OVERRIDE_CUDA=12.4", "CONDA_OVERRIDE_CUDA_ARCH=8.6"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked(parse_json(result)), std::vector<std::string>{"kernels 2.0 sm80_0"});
  result = create({"kernels"}, {"CONDA_OVERRIDE_CUDA=12.4", "CONDA_OVERRIDE_CUDA_ARCH=7.5"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked(parse_json(result)), std::vector<std::string>{"kernels 1.0 sm70_0"});
  result = create({"kernels"}, {"CONDA_OVERRIDE_CUDA=12.4", "CONDA_OVERRIDE_CUDA_ARCH=6.1"});
  EXPECT_EQ(result.exit_code, 1);
  const auto error = parse_json(result)["error"].get<std::string>();
  EXPECT_NE(error.find("needs __cuda_arch >=7.0 but the oldest GPU here has compute capability 6.1 (from "
                       "CONDA_OVERRIDE_CUDA_ARCH)"),
            std::string::npos)
      << error;
}

TEST_F(CreateCuda, ADetectedOldDriverIsNamedWithItsRelease) {
  // The fake libcuda answers for a CUDA 11.8 driver (release 520.61.05 in
  // /proc) with a Tesla T4; the CUDA 11.8 build of gpukit would fit it.
  std::filesystem::create_directories(machine / "proc/driver/nvidia");
  std::filesystem::create_directories(machine / "proc/sys/kernel/random");
  std::ofstream(machine / "proc/driver/nvidia/version")
      << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  520.61.05  Wed Sep 21 2022\n";
  std::ofstream(machine / "proc/sys/kernel/random/boot_id") << "0c8b1a4e-1111-4222-8333-444455556666\n";
  const auto result = create({"gpukit=1.0=hb2c41e0_0"},
                             {"GPUENV_LIBCUDA=" + std::string(FAKE_LIBCUDA_PATH), "FAKE_CUDA_DRIVER_VERSION=11080",
                              "FAKE_CUDA_DEVICES=7.5:Tesla T4:16106127360"},
                             false);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("gpukit 1.0 hb2c41e0_0 needs __cuda >=12 but this driver (520.61.05, CUDA 11.8) is "
                            "too old: upgrade the driver to >= 525.60.13 (CUDA 12.0), or ask for a CUDA 11 build "
                            "(cuda-version 11.*)"),
            std::string::npos)
      << result.err;
}

}  // namespace
