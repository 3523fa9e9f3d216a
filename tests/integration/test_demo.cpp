// The README's main job, scripts/demo.sh: an environment from the demo
// channel the build writes (tools/make_demo_channel.cpp), with the build
// of gpuenv-demo that fits the driver, and a program run from it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::testing {
namespace {

// <build>/demo-channel, beside <build>/src/cli/gpuenv (tools/CMakeLists.txt).
std::filesystem::path demo_channel() {
  if (const char* given = std::getenv("GPUENV_DEMO_CHANNEL")) return given;
  return std::filesystem::path(GPUENV_BINARY).parent_path().parent_path().parent_path() / "demo-channel";
}

class Demo : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(demo_channel() / "noarch/repodata.json"))
        << "no demo channel at " << demo_channel() << ": build the demo_channel target";
  }

  CommandOutput demo(const std::string& cuda) const {
    return run_program(std::string(GPUENV_SOURCE_DIR) + "/scripts/demo.sh", {},
                       machine.env({"GPUENV_BIN=" + std::string(GPUENV_BINARY),
                                    "GPUENV_DEMO_CHANNEL=" + demo_channel().string(),
                                    "GPUENV_DEMO_PREFIX=" + prefix.string(), "CONDA_OVERRIDE_CUDA=" + cuda,
                                    "GPUENV_EXAMPLES_CHANNEL=" + (machine / "examples-channel").string(),
                                    "GPUENV_EXAMPLES_PREFIX=" + (machine / "examples-env").string(),
                                    "-CONDA_PREFIX", "-CONDA_SHLVL"}));
  }

  // name-build of each package the demo environment would get.
  std::vector<std::string> planned_for(const std::string& cuda) const {
    const auto result = run_gpuenv({"create", "--dry-run", "--json", "-p", (machine / "plan").string(), "-c",
                                    demo_channel().string(), "--override-channels", "gpuenv-demo"},
                                   machine.env({"CONDA_OVERRIDE_CUDA=" + cuda}));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::vector<std::string> planned;
    const auto document = nlohmann::json::parse(result.out);
    for (const auto& action : document["actions"]["LINK"]) {
      planned.push_back(action["name"].get<std::string>() + "-" + action["build"].get<std::string>());
    }
    std::sort(planned.begin(), planned.end());
    return planned;
  }

  SolveCliMachine machine;
  std::filesystem::path prefix = machine / "demo-env";
};

TEST_F(Demo, DriverWithCuda124GetsTheCuda126BuildAndRunsIt) {
  const auto result = demo("12.4");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("$ gpuenv create -y -p " + prefix.string()), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("__cuda=12.4"), std::string::npos) << result.out;
  // What the program printed, run through `gpuenv run`:
  EXPECT_NE(result.out.find("gpuenv-demo 1.0, the CUDA 12.6 build (gpuenv-demo-1.0-cuda126_0)\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("installed in:     " + prefix.string() + "\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("environment:      " + prefix.string() + "\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("activation:       gpuenv-demo-data's activate.d script ran\n"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("message:          from gpuenv-demo-data 1.0"), std::string::npos) << result.out;

  const auto listed = run_gpuenv({"list", "-p", prefix.string(), "--canonical"}, machine.env());
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out, "cuda-version-12.6-h7480c83_3\ngpuenv-demo-1.0-cuda126_0\ngpuenv-demo-data-1.0-0\n");

  // A second run replaces the demo environment it made.
  const auto again = demo("13.0");
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("the CUDA 13.0 build (gpuenv-demo-1.0-cuda130_0)"), std::string::npos) << again.out;
  // The examples: built for this machine's nvcc (when it has one), and the
  // CUDA 13 driver gets that build.
  if (again.out.find("--variant cuda_compiler_version=None,13.0") != std::string::npos) {
    EXPECT_NE(again.out.find("built libstencil-1.0.0-cuda130_"), std::string::npos) << again.out;
    EXPECT_NE(again.out.find("+ libstencil       1.0.0    cuda130_"), std::string::npos) << again.out;
  }
}

TEST_F(Demo, WithoutADriverTheCpuBuildRuns) {
  const auto result = demo("");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("gpuenv-demo 1.0, the CPU build"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("(gpuenv-demo-1.0-cpu_0)"), std::string::npos) << result.out;
  // The examples are built into a local channel and the CPU build of
  // libstencil is installed and runs.
  EXPECT_NE(result.out.find("built libstencil-1.0.0-cpu_"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("built stencil-stats-1.0.0-"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("built stencil-samples-1.0.0-"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("+ libstencil       1.0.0    cpu_"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("stencil-stats: 512x512 image, mean 127.500, smoothed mean 127.314 (CPU)\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("share/stencil-samples/checkerboard.pgm\n"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("this is the CPU build of libstencil"), std::string::npos) << result.err;
}

TEST_F(Demo, EachDriverGetsTheNewestBuildItCanRun) {
  EXPECT_EQ(planned_for("11.8"), (std::vector<std::string>{"cuda-version-h70ddcb2_3", "gpuenv-demo-cuda118_0",
                                                           "gpuenv-demo-data-0"}));
  EXPECT_EQ(planned_for("12.9"), (std::vector<std::string>{"cuda-version-h7480c83_3", "gpuenv-demo-cuda126_0",
                                                           "gpuenv-demo-data-0"}));
  EXPECT_EQ(planned_for("13.1"), (std::vector<std::string>{"cuda-version-hbd52c62_3", "gpuenv-demo-cuda130_0",
                                                           "gpuenv-demo-data-0"}));
  // Older than every CUDA build: the CPU build, not a failure.
  EXPECT_EQ(planned_for("11.4"), (std::vector<std::string>{"gpuenv-demo-cpu_0", "gpuenv-demo-data-0"}));
}

TEST_F(Demo, ExportedLockfileRecreatesTheEnvironment) {
  ASSERT_EQ(demo("12.4").exit_code, 0);
  const auto lockfile = machine / "demo-lock.txt";
  const auto exported = run_gpuenv({"env", "export", "-p", prefix.string(), "--explicit", "-f", lockfile.string()},
                                   machine.env());
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto copy = machine / "copy-env";
  // No CUDA override: an explicit lockfile is installed as it is, unsolved.
  const auto created =
      run_gpuenv({"create", "-y", "-p", copy.string(), "--file", lockfile.string()}, machine.env());
  ASSERT_EQ(created.exit_code, 0) << created.out << created.err;
  const auto original = run_gpuenv({"list", "-p", prefix.string(), "--export"}, machine.env());
  const auto recreated = run_gpuenv({"list", "-p", copy.string(), "--export"}, machine.env());
  EXPECT_EQ(recreated.out, original.out);
  const auto ran = run_gpuenv({"run", "-p", copy.string(), "--", "gpuenv-demo"}, machine.env());
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_NE(ran.out.find("installed in:     " + copy.string() + "\n"), std::string::npos) << ran.out;
}

}  // namespace
}  // namespace gpuenv::testing
