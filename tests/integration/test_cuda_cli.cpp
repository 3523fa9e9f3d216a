// `gpuenv cuda` end to end, against the fake driver libraries.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::run_gpuenv;
using nlohmann::json;

// A private machine: its own /proc (boot id, driver version), /dev, cache,
// and the fake libcuda; plus the environment that points gpuenv at them.
class CudaCliMachine {
 public:
  CudaCliMachine() {
    std::string pattern = (fs::temp_directory_path() / "gpuenv-cuda-cli-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
    write(root_ / "proc/sys/kernel/random/boot_id", "0c8b1a4e-1111-4222-8333-444455556666\n");
    write(root_ / "proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build\n");
    fs::create_directories(root_ / "dev");
    fs::create_directories(root_ / "sys");
  }
  ~CudaCliMachine() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }

  // The environment for a run, with `extra` assignments appended.
  std::vector<std::string> env(std::vector<std::string> extra = {}) const {
    std::vector<std::string> assignments = {
        "GPUENV_LIBCUDA=" + std::string(FAKE_LIBCUDA_PATH),
        "GPUENV_CACHE_DIR=" + (root_ / "cache").string(),
        "GPUENV_PROC_ROOT=" + (root_ / "proc").string(),
        "GPUENV_SYS_ROOT=" + (root_ / "sys").string(),
        "GPUENV_DEV_ROOT=" + (root_ / "dev").string(),
        "FAKE_CUDA_CALL_LOG=" + call_log().string(),
        "-FAKE_CUDA_DEVICES", "-FAKE_CUDA_HANG", "-FAKE_CUDA_CRASH", "-FAKE_CUDA_INIT_ERROR",
        "-CUDA_VISIBLE_DEVICES", "-CONDA_OVERRIDE_CUDA", "-CONDA_OVERRIDE_CUDA_ARCH", "-GPUENV_CUDA_TIMEOUT",
        "-GPUENV_LIBNVML"};
    assignments.insert(assignments.end(), extra.begin(), extra.end());
    return assignments;
  }

  fs::path root() const { return root_; }
  fs::path call_log() const { return root_ / "driver-calls.log"; }
  std::size_t driver_call_count() const {
    std::ifstream in(call_log());
    std::size_t count = 0;
    for (std::string line; std::getline(in, line);) ++count;
    return count;
  }

 private:
  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  fs::path root_;
};

json parse(const gpuenv::testing::CommandOutput& result) {
  auto document = json::parse(result.out, nullptr, false);
  EXPECT_FALSE(document.is_discarded()) << result.out << result.err;
  return document;
}

std::string virtual_package(const json& document, const std::string& name) {
  for (const auto& package : document["virtual_packages"]) {
    if (package["name"] == name) return package["version"].get<std::string>() + "=" + package["build"].get<std::string>();
  }
  return "(absent)";
}

TEST(CudaCli, JsonReportsTheDriverDevicesAndVirtualPackages) {
  CudaCliMachine machine;
  const auto result = run_gpuenv(
      {"cuda", "--json"},
      machine.env({"FAKE_CUDA_DEVICES=9.0:NVIDIA H200:150754820096;8.6:NVIDIA A10:24146608128"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse(result);
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["status"], "ok");
  EXPECT_EQ(document["usable"], true);
  EXPECT_EQ(document["source"], "libcuda");
  EXPECT_EQ(document["driver"]["release"], "580.159.04");
  EXPECT_EQ(document["driver"]["cuda_version"], "13.0");
  ASSERT_EQ(document["devices"].size(), 2u);
  const auto& h200 = document["devices"][0];
  EXPECT_EQ(h200["name"], "NVIDIA H200");
  EXPECT_EQ(h200["compute_capability"], "9.0");
  EXPECT_EQ(h200["sm"], "sm_90");
  EXPECT_EQ(h200["architecture"], "Hopper");
  EXPECT_EQ(h200["memory_bytes"], 150754820096u);
  EXPECT_NEAR(h200["memory_gib"].get<double>(), 140.4, 0.05);
  EXPECT_EQ(h200["uuid"].get<std::string>().rfind("GPU-", 0), 0u);
  EXPECT_EQ(virtual_package(document, "__cuda"), "13.0=0");
  EXPECT_EQ(virtual_package(document, "__cuda_arch"), "8.6=0");
  EXPECT_EQ(document["detection"]["from_cache"], false);

  bool saw_13_1 = false;
  for (const auto& toolkit : document["toolkits"]) {
    if (toolkit["cuda"] == "13.1") {
      saw_13_1 = true;
      EXPECT_EQ(toolkit["support"], "minor_version_compatibility");
      EXPECT_EQ(toolkit["devices"][0]["target"], "sass");
    }
    if (toolkit["cuda"] == "11.7") {
      EXPECT_EQ(toolkit["devices"][0]["target"], "ptx_only");
    }
  }
  EXPECT_TRUE(saw_13_1);
}

TEST(CudaCli, SecondRunComesFromTheCacheWithoutDriverCalls) {
  CudaCliMachine machine;
  ASSERT_EQ(run_gpuenv({"cuda", "--json"}, machine.env()).exit_code, 0);
  const auto calls_after_first = machine.driver_call_count();
  EXPECT_GT(calls_after_first, 0u);
  const auto second = run_gpuenv({"cuda", "--json"}, machine.env());
  EXPECT_EQ(parse(second)["detection"]["from_cache"], true);
  EXPECT_EQ(machine.driver_call_count(), calls_after_first);
  const auto refreshed = run_gpuenv({"cuda", "--json", "--refresh"}, machine.env());
  EXPECT_EQ(parse(refreshed)["detection"]["cache"], "refreshed");
  EXPECT_GT(machine.driver_call_count(), calls_after_first);
}

TEST(CudaCli, HumanReportTellsTheWholeStory) {
  CudaCliMachine machine;
  const auto result = run_gpuenv({"cuda"}, machine.env({"FAKE_CUDA_DEVICES=6.1:Tesla P40:24146608128"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* expected : {"580.159.04", "Tesla P40", "compute capability 6.1", "sm_61", "Pascal",
                               "__cuda=13.0=0", "__cuda_arch=6.1=0", "minor-version compatibility",
                               "dropped this GPU", "GPU-"}) {
    EXPECT_NE(result.out.find(expected), std::string::npos) << expected << " missing from\n" << result.out;
  }
}

TEST(CudaCli, NoGpuIsNotAnError) {
  CudaCliMachine machine;
  const auto result = run_gpuenv({"cuda"}, machine.env({"GPUENV_LIBCUDA=/nonexistent/libcuda.so.1"}));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("no NVIDIA CUDA driver library was found"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("what to do"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("/nonexistent/libcuda.so.1"), std::string::npos) << result.out;
  const auto json_result = run_gpuenv({"cuda", "--json"}, machine.env({"GPUENV_LIBCUDA=/nonexistent/libcuda.so.1"}));
  EXPECT_EQ(json_result.exit_code, 0);
  const auto document = parse(json_result);
  EXPECT_EQ(document["status"], "no_library");
  EXPECT_EQ(virtual_package(document, "__cuda"), "(absent)");
  EXPECT_TRUE(document["toolkits"].empty());
}

TEST(CudaCli, HangingDriverIsCutOffAtTheTimeout) {
  CudaCliMachine machine;
  const auto started = std::chrono::steady_clock::now();
  const auto result = run_gpuenv({"cuda", "--json", "--timeout", "0.5"}, machine.env({"FAKE_CUDA_HANG=1"}));
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_LT(took, std::chrono::seconds(3));
  const auto document = parse(result);
  EXPECT_EQ(document["status"], "timed_out");
  EXPECT_EQ(document["failed_call"], "cuInit");
  EXPECT_NE(document["message"].get<std::string>().find("within 0.5 s"), std::string::npos);
  EXPECT_EQ(document["detection"]["time_limit_s"], 0.5);
}

TEST(CudaCli, TimeoutFromTheEnvironment) {
  CudaCliMachine machine;
  const auto result = run_gpuenv({"cuda", "--json"}, machine.env({"FAKE_CUDA_HANG=1", "GPUENV_CUDA_TIMEOUT=0.3"}));
  const auto document = parse(result);
  EXPECT_EQ(document["status"], "timed_out");
  EXPECT_EQ(document["detection"]["time_limit_s"], 0.3);
}

TEST(CudaCli, CrashingDriverDoesNotTakeGpuenvDown) {
  CudaCliMachine machine;
  const auto result = run_gpuenv({"cuda", "--json"}, machine.env({"FAKE_CUDA_CRASH=1"}));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse(result);
  EXPECT_EQ(document["status"], "crashed");
  EXPECT_EQ(document["signal_number"], 11);
  EXPECT_EQ(virtual_package(document, "__cuda"), "(absent)");
}

TEST(CudaCli, OverridesChangeVirtualPackagesNotTheDriverReport) {
  CudaCliMachine machine;
  const auto result = run_gpuenv({"cuda", "--json"},
                                 machine.env({"CONDA_OVERRIDE_CUDA=12.2", "CONDA_OVERRIDE_CUDA_ARCH="}));
  const auto document = parse(result);
  EXPECT_EQ(document["driver"]["cuda_version"], "13.0");
  EXPECT_EQ(virtual_package(document, "__cuda"), "12.2=0");
  EXPECT_EQ(virtual_package(document, "__cuda_arch"), "(absent)");
}

TEST(CudaCli, BadTimeoutIsAUsageError) {
  CudaCliMachine machine;
  const auto result = run_gpuenv({"cuda", "--timeout", "-2"}, machine.env());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--timeout"), std::string::npos) << result.err;
}

}  // namespace
