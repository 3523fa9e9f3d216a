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
    // conda-forge's metapackage pinning the CUDA major.minor of an environment.
    channel.add(gpuenv::testing::PackageBuilder("cuda-version", "13.0", "3"));
    fs::create_directories(*this / "channel/noarch");
    std::ofstream(*this / "channel/noarch/repodata.json")
        << R"({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}})";
  }
  fs::path install(const std::string& name, const std::string& spec) const {
    return install(name, std::vector<std::string>{spec});
  }
  fs::path install(const std::string& name, const std::vector<std::string>& specs) const {
    const auto prefix = *this / name;
    std::vector<std::string> args = {"create", "-p", prefix.string(), "-c", file_url(*this / "channel"),
                                     "--override-channels", "-y"};
    args.insert(args.end(), specs.begin(), specs.end());
    const auto result = run_gpuenv(args, env());
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    return prefix;
  }
  gpuenv::testing::CommandOutput doctor(const fs::path& prefix, std::vector<std::string> extra = {},
                                        const std::string& driver_version = "13000") const {
    std::vector<std::string> args = {"doctor", "-p", prefix.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, h200(driver_version));
  }
  // The fake driver reporting one H200 (sm_90) and CUDA `driver_version`.
  std::vector<std::string> h200(const std::string& driver_version = "13000",
                                std::vector<std::string> extra = {}) const {
    extra.insert(extra.end(), {"GPUENV_LIBCUDA=" + std::string(FAKE_LIBCUDA_PATH),
                               "FAKE_CUDA_DEVICES=9.0:NVIDIA H200:150754820096",
                               "FAKE_CUDA_DRIVER_VERSION=" + driver_version});
    return env(extra);
  }
  // `gpuenv create` on the H200 machine.
  gpuenv::testing::CommandOutput create_on_h200(const std::string& name, const std::string& spec,
                                                std::vector<std::string> extra_env = {}) const {
    return run_gpuenv({"create", "-p", (*this / name).string(), "-c", file_url(*this / "channel"),
                       "--override-channels", "-y", spec},
                      h200("13000", std::move(extra_env)));
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

// A machine without a GPU (a login node, a CI runner) still learns whether
// the environment's files can load there; the GPU code is left unjudged,
// saying how to judge it for another machine's GPU.
TEST(DoctorCli, NoGpuStillChecksLoadingAndSaysHowToJudgeTheGpuCode) {
  DoctorMachine machine;
  const auto prefix = machine.install("sm90", "cudalib=1.0=sm90_0");
  const auto result = run_gpuenv({"doctor", "-p", prefix.string()}, machine.env());
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "no GPU found on this machine (see `gpuenv cuda`): the GPU code of 1 file is not "
                                   "judged; --gpu sm_XY judges it for another machine's GPU"))
      << result.out;
  EXPECT_FALSE(contains(result.out, "every library can run on every GPU")) << result.out;
  EXPECT_TRUE(contains(result.out, "every ELF file can load here")) << result.out;
  const auto as_json = run_gpuenv({"doctor", "-p", prefix.string(), "--json"}, machine.env());
  EXPECT_EQ(as_json.exit_code, 0) << as_json.out << as_json.err;
  const auto document = json::parse(as_json.out);
  EXPECT_TRUE(document["gpus"].empty()) << as_json.out;
  EXPECT_TRUE(document["elf_load"]["success"].get<bool>()) << as_json.out;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST(DoctorCli, ACuda13EnvironmentCannotRunOnACuda12DriverAndDoctorNamesTheFix) {
  DoctorMachine machine;
  const auto prefix = machine.install("cuda13", std::vector<std::string>{"cudalib=1.0=sm90_0", "cuda-version=13.0"});
  const auto result = machine.doctor(prefix, {}, "12040");
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "CUDA runtime needed, driver CUDA 12.4")) << result.out;
  EXPECT_TRUE(contains(result.out, "FAIL cuda-version 13.0 (needed by cuda-version-13.0-3): cannot run: CUDA 13.0 "
                                   "needs a driver for CUDA 13.0 (Linux driver >= 580.65.06); this driver provides "
                                   "CUDA 12.4"))
      << result.out;
  EXPECT_TRUE(contains(result.out, "FAIL libcudart.so.13 (needed by lib/libadd.so (cudalib-1.0-sm90_0))")) << result.out;
  EXPECT_TRUE(contains(result.out, "fix: upgrade the NVIDIA driver to >= 580.65.06, or install a CUDA 12 build: "
                                   "`cuda-version 12.*`"))
      << result.out;
  EXPECT_TRUE(contains(result.out, "the CUDA runtime this environment needs cannot run on this driver")) << result.out;

  const auto json_result = machine.doctor(prefix, {"--json"}, "12040");
  EXPECT_EQ(json_result.exit_code, 1);
  const auto document = json::parse(json_result.out);
  EXPECT_FALSE(document["success"].get<bool>());
  EXPECT_EQ(document["cuda_runtime"].at(0)["requirement"], "cuda-version 13.0");
  EXPECT_EQ(document["cuda_runtime"].at(0)["verdict"], "needs_newer_driver");
  EXPECT_EQ(document["cuda_runtime"].at(0)["min_driver"], "580.65.06");

  const auto on_13 = machine.doctor(prefix, {}, "13000");
  EXPECT_EQ(on_13.exit_code, 0) << on_13.out << on_13.err;
  EXPECT_TRUE(contains(on_13.out, "ok   cuda-version 13.0 (needed by cuda-version-13.0-3): CUDA 13.0 runs on this "
                                  "driver (CUDA 13.0)"))
      << on_13.out;
  EXPECT_TRUE(contains(on_13.out, "ok   libcudart.so.13")) << on_13.out;
}

TEST(DoctorCli, InstallingAnSm80OnlyLibraryOnAnH200WarnsOnce) {
  DoctorMachine machine;
  const auto result = machine.create_on_h200("sm80", "cudalib=1.0=sm80_0");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto all = result.out + result.err;
  const auto expected = "gpuenv: warning: 1 installed library cannot run on this machine's GPU (sm_90): lib/libadd.so "
                        "(sm_80 only); run gpuenv doctor -p " + (machine / "sm80").string() + " for details";
  EXPECT_EQ(occurrences(all, expected), 1U) << all;
  EXPECT_EQ(occurrences(all, "cannot run"), 1U) << all;
}

TEST(DoctorCli, TheWarningAfterAnInstallIsOffWithTheSetting) {
  DoctorMachine machine;
  const auto result = machine.create_on_h200("sm80", "cudalib=1.0=sm80_0", {"CONDA_GPUENV_CHECK_DEVICE_CODE=false"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_FALSE(contains(result.out + result.err, "cannot run")) << result.out << result.err;
}

TEST(DoctorCli, InstallingAnSm90LibraryOnAnH200GivesNoWarning) {
  DoctorMachine machine;
  const auto result = machine.create_on_h200("sm90", "cudalib=1.0=sm90_0");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_FALSE(contains(result.out + result.err, "warning")) << result.out << result.err;
}

}  // namespace
