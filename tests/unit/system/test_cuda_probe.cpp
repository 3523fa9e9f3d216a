// CUDA detection against the fake driver: every way it can end, each
// reported distinctly and in words.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "fake_machine.hpp"
#include "gpuenv/system/cuda_detection.hpp"
#include "gpuenv/system/cuda_diagnosis.hpp"
#include "gpuenv/system/virtual_packages.hpp"

namespace gpuenv::system {
namespace {

using testing::FakeMachine;
using namespace std::chrono_literals;

std::string find_virtual(const CudaReport& report, const std::string& name) {
  VirtualPackageInputs inputs;
  inputs.cuda = cuda_facts(report);
  for (const auto& package : compute_virtual_packages(inputs, {}).packages) {
    if (package.name == name) return package.version;
  }
  return "(absent)";
}

TEST(CudaProbe, NoLibraryListsEveryPlaceSearched) {
  FakeMachine machine;
  auto config = machine.config();
  config.libcuda_override.reset();
  config.driver_directories = {machine.root() / "nowhere-a", machine.root() / "nowhere-b"};
  const auto report = detect_cuda_uncached(config);
  EXPECT_EQ(report.status, DetectionStatus::no_library);
  EXPECT_FALSE(report.source.has_value());
  const std::vector<std::string> expected = {
      (machine.root() / "nowhere-a/libcuda.so.1").string(), (machine.root() / "nowhere-a/libcuda.so").string(),
      (machine.root() / "nowhere-b/libcuda.so.1").string(), (machine.root() / "nowhere-b/libcuda.so").string()};
  EXPECT_EQ(std::vector<std::string>(report.searched.begin(), report.searched.begin() + 4), expected);
  for (const auto& place : expected) EXPECT_NE(report.message.find(place), std::string::npos) << report.message;
  EXPECT_NE(report.remedy.find("install the NVIDIA driver"), std::string::npos);
  EXPECT_EQ(find_virtual(report, "__cuda"), "(absent)");
}

TEST(CudaProbe, OverrideNamesExactlyOneFile) {
  FakeMachine machine;
  auto config = machine.config();
  config.libcuda_override = (machine.root() / "missing/libcuda.so.1").string();
  const auto report = detect_cuda_uncached(config);
  EXPECT_EQ(report.status, DetectionStatus::no_library);
  EXPECT_EQ(report.searched, std::vector<std::string>{*config.libcuda_override});
}

TEST(CudaProbe, FileThatIsNotALibraryIsUnusableNotMissing) {
  FakeMachine machine;
  testing::write_text(machine.root() / "broken/libcuda.so.1", "not an ELF file");
  auto config = machine.config();
  config.libcuda_override = (machine.root() / "broken/libcuda.so.1").string();
  const auto report = detect_cuda_uncached(config);
  EXPECT_EQ(report.status, DetectionStatus::library_unusable);
  EXPECT_NE(report.message.find("could not be used"), std::string::npos) << report.message;
}

TEST(CudaProbe, StubLibraryIsNamedAsSuch) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_INIT_ERROR", "34");
  const auto report = detect_cuda_uncached(machine.config());
  EXPECT_EQ(report.status, DetectionStatus::stub_library);
  ASSERT_TRUE(report.error.has_value());
  EXPECT_EQ(cuda_error_name(report.error->code), "CUDA_ERROR_STUB_LIBRARY");
  EXPECT_NE(report.message.find("stub"), std::string::npos) << report.message;
  EXPECT_NE(report.remedy.find("stubs"), std::string::npos) << report.remedy;
  EXPECT_EQ(find_virtual(report, "__cuda"), "(absent)");
}

TEST(CudaProbe, StubEarlierInTheSearchDoesNotHideARealDriver) {
  FakeMachine machine;
  const auto stubs = machine.root() / "toolkit/lib64/stubs";
  const auto real = machine.root() / "usr/local/nvidia/lib64";
  std::filesystem::create_directories(stubs);
  std::filesystem::create_directories(real);
  std::filesystem::copy_file(FAKE_LIBCUDA_PATH, stubs / "libcuda.so.1");
  std::filesystem::copy_file(FAKE_LIBCUDA_PATH, real / "libcuda.so.1");
  machine.env.set("FAKE_CUDA_STUB_PATH_CONTAINS", "/stubs/");
  auto config = machine.config();
  config.libcuda_override.reset();
  config.driver_directories = {stubs, real};
  const auto report = detect_cuda_uncached(config);
  EXPECT_EQ(report.status, DetectionStatus::ok) << report.message;
  EXPECT_EQ(report.library_path, std::filesystem::canonical(real / "libcuda.so.1").string());
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes.front().find("stub"), std::string::npos) << report.notes.front();
}

TEST(CudaProbe, DriverWithoutDevicesKeepsCudaButNotCudaArch) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_DEVICES", "");
  machine.env.set("FAKE_CUDA_DRIVER_VERSION", "12040");
  const auto report = detect_cuda_uncached(machine.config());
  EXPECT_EQ(report.status, DetectionStatus::no_device);
  EXPECT_EQ(report.driver_cuda_version, 12040);
  EXPECT_TRUE(report.devices.empty());
  EXPECT_EQ(find_virtual(report, "__cuda"), "12.4");
  EXPECT_EQ(find_virtual(report, "__cuda_arch"), "(absent)");
  EXPECT_NE(report.message.find("no CUDA device"), std::string::npos) << report.message;
}

TEST(CudaProbe, OneDeviceWithEveryDetail) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_DEVICES", "9.0:NVIDIA H200:150754820096:GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
  machine.set_proc_driver_version("580.159.04");
  const auto report = detect_cuda_uncached(machine.config());
  ASSERT_EQ(report.status, DetectionStatus::ok) << report.message;
  EXPECT_EQ(report.source, DetectionSource::libcuda);
  EXPECT_EQ(report.driver_cuda_version, 13000);
  EXPECT_EQ(report.driver_release, "580.159.04");
  EXPECT_EQ(report.library_path, std::filesystem::canonical(machine.library()).string());
  ASSERT_EQ(report.devices.size(), 1u);
  const auto& device = report.devices[0];
  EXPECT_EQ(device.index, 0);
  EXPECT_EQ(device.name, "NVIDIA H200");
  EXPECT_EQ(device.compute_capability, (ComputeCapability{9, 0}));
  EXPECT_EQ(device.memory_bytes, 150754820096u);
  EXPECT_EQ(device.uuid, "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
  EXPECT_EQ(device.pci_bus_id, "0000:01:00.0");
  EXPECT_TRUE(report.message.empty());
  EXPECT_EQ(find_virtual(report, "__cuda"), "13.0");
  EXPECT_EQ(find_virtual(report, "__cuda_arch"), "9.0");
}

TEST(CudaProbe, MixedDevicesGiveTheLowestComputeCapability) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_DEVICES", "9.0:NVIDIA H100:85899345920;8.6:NVIDIA A10:24146608128");
  const auto report = detect_cuda_uncached(machine.config());
  ASSERT_EQ(report.devices.size(), 2u);
  EXPECT_EQ(find_virtual(report, "__cuda_arch"), "8.6");
}

TEST(CudaProbe, ComputeCapabilitiesCompareAsPairsNotText) {
  FakeMachine machine;
  // As text "10.0" < "9.0"; as (major, minor) 9.0 is the lowest.
  machine.env.set("FAKE_CUDA_DEVICES", "10.0:NVIDIA B200:1;9.0:NVIDIA H100:1;12.0:RTX 5090:1");
  const auto report = detect_cuda_uncached(machine.config());
  EXPECT_EQ(find_virtual(report, "__cuda_arch"), "9.0");
}

TEST(CudaProbe, CudaVisibleDevicesSelectsDevices) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_DEVICES", "9.0:NVIDIA H100:1;8.6:NVIDIA A10:1");
  machine.env.set("CUDA_VISIBLE_DEVICES", "1");
  const auto report = detect_cuda_uncached(machine.config());
  ASSERT_EQ(report.devices.size(), 1u);
  EXPECT_EQ(report.devices[0].name, "NVIDIA A10");
  EXPECT_EQ(find_virtual(report, "__cuda_arch"), "8.6");
}

struct InitErrorCase {
  int code;
  const char* name;
  const char* remedy_fragment;
};

void PrintTo(const InitErrorCase& error, std::ostream* out) { *out << error.name; }

class CudaProbeInitError : public ::testing::TestWithParam<InitErrorCase> {};

TEST_P(CudaProbeInitError, IsReportedByNameWithARemedy) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_INIT_ERROR", std::to_string(GetParam().code));
  const auto report = detect_cuda_uncached(machine.config());
  EXPECT_EQ(report.status, DetectionStatus::init_failed);
  ASSERT_TRUE(report.error.has_value());
  EXPECT_EQ(report.error->function, "cuInit");
  EXPECT_EQ(report.error->code, GetParam().code);
  EXPECT_NE(report.message.find(GetParam().name), std::string::npos) << report.message;
  EXPECT_NE(report.remedy.find(GetParam().remedy_fragment), std::string::npos) << report.remedy;
  EXPECT_EQ(find_virtual(report, "__cuda"), "(absent)");
}

INSTANTIATE_TEST_SUITE_P(
    Codes, CudaProbeInitError,
    ::testing::Values(InitErrorCase{35, "CUDA_ERROR_INSUFFICIENT_DRIVER", "Reboot"},
                      InitErrorCase{803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "Reboot"},
                      InitErrorCase{804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "cuda-compat"},
                      InitErrorCase{802, "CUDA_ERROR_SYSTEM_NOT_READY", "fabric manager"},
                      InitErrorCase{304, "CUDA_ERROR_OPERATING_SYSTEM", "/dev/nvidia"},
                      InitErrorCase{999, "CUDA_ERROR_UNKNOWN", "dmesg"},
                      InitErrorCase{4242, "CUresult 4242", "nvidia-smi"}),
    [](const auto& info) { return "code" + std::to_string(info.param.code); });

TEST(CudaProbe, HangInCuInitEndsWithinTheTimeLimit) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_HANG", "1");
  auto config = machine.config();
  config.time_limit = 300ms;
  const auto started = std::chrono::steady_clock::now();
  const auto report = detect_cuda_uncached(config);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(report.status, DetectionStatus::timed_out);
  EXPECT_LT(took, 2s);
  EXPECT_GE(took, 290ms);
  EXPECT_EQ(report.failed_call, "cuInit");
  EXPECT_NE(report.message.find("did not answer within 0.3 s"), std::string::npos) << report.message;
  EXPECT_NE(report.message.find("cuInit"), std::string::npos) << report.message;
  EXPECT_NE(report.remedy.find("GPUENV_CUDA_TIMEOUT"), std::string::npos) << report.remedy;
}

TEST(CudaProbe, HangInALaterCallNamesThatCall) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_HANG", "cuDeviceGetName");
  auto config = machine.config();
  config.time_limit = 300ms;
  const auto report = detect_cuda_uncached(config);
  EXPECT_EQ(report.status, DetectionStatus::timed_out);
  EXPECT_EQ(report.failed_call, "cuDeviceGetName");
}

TEST(CudaProbe, CrashInTheDriverIsReportedWithItsSignal) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_CRASH", "1");
  const auto report = detect_cuda_uncached(machine.config());
  EXPECT_EQ(report.status, DetectionStatus::crashed);
  EXPECT_EQ(report.signal, SIGSEGV);
  EXPECT_EQ(report.failed_call, "cuInit");
  EXPECT_NE(report.message.find("SIGSEGV"), std::string::npos) << report.message;
  EXPECT_EQ(find_virtual(report, "__cuda"), "(absent)");
}

TEST(CudaProbe, FailuresAreDistinct) {
  // Each failure mode has its own status and its own wording.
  FakeMachine machine;
  std::vector<std::string> messages;
  const auto run = [&](const char* variable, const char* value) {
    testing::ScopedEnvironment scoped;
    scoped.set(variable, value);
    auto config = machine.config();
    config.time_limit = 300ms;
    messages.push_back(detect_cuda_uncached(config).message);
  };
  run("FAKE_CUDA_INIT_ERROR", "34");
  run("FAKE_CUDA_INIT_ERROR", "803");
  run("FAKE_CUDA_DEVICES", "");
  run("FAKE_CUDA_HANG", "1");
  run("FAKE_CUDA_CRASH", "1");
  std::sort(messages.begin(), messages.end());
  EXPECT_EQ(std::unique(messages.begin(), messages.end()), messages.end());
}

TEST(CudaProbe, ReleaseComesFromProcThenModuleThenLibraryName) {
  FakeMachine machine;
  // No kernel files: the release is in the real library's file name.
  const auto versioned = machine.root() / "driver/libcuda.so.535.104.05";
  std::filesystem::rename(machine.library(), versioned);
  std::filesystem::create_symlink(versioned, machine.library());
  auto report = detect_cuda_uncached(machine.config());
  EXPECT_EQ(report.driver_release, "535.104.05");
  EXPECT_NE(report.driver_release_source.find("file name"), std::string::npos);

  machine.set_module_version("550.54.14");
  report = detect_cuda_uncached(machine.config());
  EXPECT_EQ(report.driver_release, "550.54.14");
  EXPECT_NE(report.driver_release_source.find("module/nvidia/version"), std::string::npos);

  machine.set_proc_driver_version("580.159.04");
  report = detect_cuda_uncached(machine.config());
  EXPECT_EQ(report.driver_release, "580.159.04");
  EXPECT_NE(report.driver_release_source.find("driver/nvidia/version"), std::string::npos);
}

TEST(CudaProbe, NvmlAnswersWhenLibcudaCannotBeLoaded) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_DEVICES", "8.9:NVIDIA L4:24146608128;9.0:NVIDIA H100:85899345920");
  machine.env.set("FAKE_NVML_DRIVER_RELEASE", "575.51.03");
  machine.env.set("FAKE_CUDA_DRIVER_VERSION", "12090");
  auto config = machine.config();
  config.libcuda_override = (machine.root() / "missing/libcuda.so.1").string();
  config.nvml_override = FAKE_LIBNVML_PATH;
  const auto report = detect_cuda_uncached(config);
  ASSERT_EQ(report.status, DetectionStatus::ok) << report.message;
  EXPECT_EQ(report.source, DetectionSource::nvml);
  EXPECT_EQ(report.driver_cuda_version, 12090);
  EXPECT_EQ(report.driver_release, "575.51.03");
  EXPECT_NE(report.driver_release_source.find("NVML"), std::string::npos);
  ASSERT_EQ(report.devices.size(), 2u);
  EXPECT_EQ(report.devices[0].pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(report.devices[1].uuid.rfind("GPU-", 0), 0u);
  EXPECT_EQ(find_virtual(report, "__cuda"), "12.9");
  EXPECT_EQ(find_virtual(report, "__cuda_arch"), "8.9");
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes.front().find("NVML"), std::string::npos) << report.notes.front();
}

TEST(CudaProbe, NvmlFailureIsNotedAndTheLibcudaReasonKept) {
  FakeMachine machine;
  machine.env.set("FAKE_NVML_INIT_ERROR", "9");
  auto config = machine.config();
  config.libcuda_override = (machine.root() / "missing/libcuda.so.1").string();
  config.nvml_override = FAKE_LIBNVML_PATH;
  const auto report = detect_cuda_uncached(config);
  EXPECT_EQ(report.status, DetectionStatus::no_library);
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes.back().find("NVML_ERROR_DRIVER_NOT_LOADED"), std::string::npos) << report.notes.back();
}

TEST(CudaProbe, NamingOneLibcudaDoesNotFallBackToASystemNvml) {
  FakeMachine machine;
  auto config = machine.config();
  config.libcuda_override = (machine.root() / "missing/libcuda.so.1").string();
  EXPECT_TRUE(config.probe_plan().nvml_candidates.empty());
}

}  // namespace
}  // namespace gpuenv::system
