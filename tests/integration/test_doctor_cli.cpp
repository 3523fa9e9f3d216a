// `gpuenv doctor` end to end: packages carrying a CUDA library built for one
// GPU architecture each, installed from a test channel, judged against the
// fake driver reporting an H200 (sm_90).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::contains;
using gpuenv::testing::file_url;
using gpuenv::testing::run_gpuenv;
using nlohmann::json;

std::string committed(const std::string& name) {
  return gpuenv::testing::read_file(fs::path(GPUENV_SOURCE_DIR) / "tests/data/cuda_binary" / name);
}

// A channel with cudalib 1.0 in two builds: sm80 (machine code for sm_80
// only) and sm90 (sm_90 only), plus a PTX-only one.
class DoctorMachine : public gpuenv::testing::SolveCliMachine {
 public:
  DoctorMachine() {
    gpuenv::testing::ChannelBuilder channel(*this / "channel", file_url(*this / "channel"));
    channel.add(gpuenv::testing::PackageBuilder("cudalib", "1.0", "sm80_0")
                    .file("lib/libadd.so", committed("libadd_sm80.so"), 0755));
    channel.add(gpuenv::testing::PackageBuilder("cudalib", "1.0", "sm90_0")
                    .file("lib/libadd.so", committed("libadd_sm90.so"), 0755));
    channel.add(gpuenv::testing::PackageBuilder("ptxlib", "1.0", "compute86_0")
                    .file("lib/kernels.ptx", committed("compute_86.ptx"))
                    .file("share/ptxlib/README", "not device code\n"));
    fs::create_directories(*this / "channel/noarch");
    std::ofstream(*this / "channel/noarch/repodata.json")
        << R"({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}})";
  }
  fs::path install(const std::string& name, const std::string& spec) const {
    const auto prefix = *this / name;
    const auto result = run_gpuenv({"create", "-p", prefix.string(), "-c", file_url(*this / "channel"),
                                    "--override-channels", "-y", spec},
                                   env());
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    return prefix;
  }
  gpuenv::testing::CommandOutput doctor(const fs::path& prefix, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"doctor", "-p", prefix.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, env({"GPUENV_LIBCUDA=" + std::string(FAKE_LIBCUDA_PATH),
                                 "FAKE_CUDA_DEVICES=9.0:NVIDIA H200:150754820096", "FAKE_CUDA_DRIVER_VERSION=13000"}));
  }
};

TEST(DoctorCli, ALibraryBuiltOnlyForSm80CannotRunOnAnH200) {
  DoctorMachine machine;
  const auto prefix = machine.install("sm80", "cudalib=1.0=sm80_0");
  const auto result = machine.doctor(prefix);
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "GPU 0: NVIDIA H200 (sm_90), driver CUDA 13.0")) << result.out;
  EXPECT_TRUE(contains(result.out, "FAIL lib/libadd.so (cudalib-1.0-sm80_0): cannot run on sm_90: it carries sm_80"))
      << result.out;
  EXPECT_TRUE(contains(result.out, "\"no kernel image is available for execution on the device\"")) << result.out;
}

TEST(DoctorCli, ALibraryBuiltForSm90RunsNatively) {
  DoctorMachine machine;
  const auto prefix = machine.install("sm90", "cudalib=1.0=sm90_0");
  const auto result = machine.doctor(prefix);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "ok   lib/libadd.so (cudalib-1.0-sm90_0): runs natively (sm_90 machine code)"))
      << result.out;
}

TEST(DoctorCli, JsonAndAskingAboutAnotherGpu) {
  DoctorMachine machine;
  const auto prefix = machine.install("sm80", "cudalib=1.0=sm80_0");
  const auto result = machine.doctor(prefix, {"--gpu", "sm_86", "--json"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto document = json::parse(result.out);
  EXPECT_TRUE(document["success"].get<bool>());
  EXPECT_EQ(document["gpus"].at(0)["arch"], "sm_86");
  const auto& library = document["libraries"].at(0);
  EXPECT_EQ(library["path"], "lib/libadd.so");
  EXPECT_EQ(library["package"], "cudalib-1.0-sm80_0");
  EXPECT_EQ(library["verdicts"].at(0)["verdict"], "native");
}

TEST(DoctorCli, PtxOnlyCodeRunsThroughJitAndIsTooNewForAnOldDriver) {
  DoctorMachine machine;
  const auto prefix = machine.install("ptx", "ptxlib");
  const auto result = machine.doctor(prefix);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "JIT  lib/kernels.ptx (ptxlib-1.0-compute86_0): runs through PTX JIT")) << result.out;
  // PTX ISA 9.0 needs a CUDA 13.0 driver; a 12.4 one refuses it.
  const auto old_driver =
      run_gpuenv({"doctor", "-p", prefix.string()},
                 machine.env({"GPUENV_LIBCUDA=" + std::string(FAKE_LIBCUDA_PATH),
                              "FAKE_CUDA_DEVICES=9.0:NVIDIA H200:150754820096", "FAKE_CUDA_DRIVER_VERSION=12040"}));
  EXPECT_EQ(old_driver.exit_code, 1) << old_driver.out << old_driver.err;
  EXPECT_TRUE(contains(old_driver.out, "needs a driver for CUDA >= 13.0; this driver provides CUDA 12.4")) << old_driver.out;
}

TEST(DoctorCli, NoGpuAndNoGpuOptionSaysWhatToDo) {
  DoctorMachine machine;
  const auto prefix = machine.install("sm90", "cudalib=1.0=sm90_0");
  const auto result = run_gpuenv({"doctor", "-p", prefix.string()}, machine.env());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.err, "pass --gpu sm_XY")) << result.err;
}

}  // namespace
