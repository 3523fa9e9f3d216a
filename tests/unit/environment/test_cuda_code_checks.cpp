// The environment's CUDA checks as a library: the CUDA runtime rule
// (cuda-version and CUDA sonames against __cuda, minor version
// compatibility from metadata/), and the device-code check over the
// packages a transaction linked, with its one-line warnings.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpuenv/environment/cuda_runtime_check.hpp"
#include "gpuenv/environment/device_code_check.hpp"
#include "gpuenv/environment/doctor.hpp"
#include "gpuenv/system/metadata.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::environment {
namespace {

namespace fs = std::filesystem;
using system::CudaVersion;

const system::CudaCompatibilityTables& tables() {
  static const auto loaded = system::CudaCompatibilityTables::load();
  return loaded;
}

CudaRuntimeJudgement judge(const std::string& driver, const std::string& wanted, bool major_only = false) {
  const auto want = *CudaVersion::parse(wanted);
  return judge_cuda_runtime(tables(), *CudaVersion::parse(driver), {"cuda-version " + wanted, want, major_only, {}});
}

TEST(CudaRuntimeRule, OlderOrEqualRuntimesRun) {
  EXPECT_EQ(judge("12.4", "12.4").verdict, CudaRuntimeVerdict::runs);
  EXPECT_EQ(judge("12.4", "12.0").verdict, CudaRuntimeVerdict::runs);
  EXPECT_EQ(judge("13.0", "12.9").verdict, CudaRuntimeVerdict::runs);
  EXPECT_EQ(judge("13.0", "11.8").verdict, CudaRuntimeVerdict::runs);
}

TEST(CudaRuntimeRule, ANewerMinorOfTheSameMajorRunsThroughMinorVersionCompatibility) {
  const auto judgement = judge("12.4", "12.8");
  EXPECT_EQ(judgement.verdict, CudaRuntimeVerdict::minor_version_compatibility);
  EXPECT_TRUE(judgement.fix.empty());
  EXPECT_NE(judgement.explanation.find("PTX newer than the driver cannot be JIT-compiled"), std::string::npos);
  // A soname only says "some CUDA 12": it runs on any CUDA 12 driver.
  EXPECT_EQ(judge("12.0", "12.0", true).verdict, CudaRuntimeVerdict::runs);
}

TEST(CudaRuntimeRule, CudaTenHadNoMinorVersionCompatibility) {
  EXPECT_EQ(judge("10.1", "10.2").verdict, CudaRuntimeVerdict::needs_newer_driver);
}

TEST(CudaRuntimeRule, ANewerMajorCannotRunAndTheFixNamesTheDriverAndTheCudaBuild) {
  const auto judgement = judge("12.4", "13.0");
  EXPECT_EQ(judgement.verdict, CudaRuntimeVerdict::needs_newer_driver);
  ASSERT_TRUE(judgement.min_driver);
  EXPECT_EQ(judgement.min_driver->str(), "580.65.06");  // CUDA 13.0 GA's driver, metadata/cuda_toolkit_drivers.tsv
  EXPECT_NE(judgement.explanation.find("CUDA driver version is insufficient for CUDA runtime version"),
            std::string::npos);
  EXPECT_EQ(judgement.fix,
            "upgrade the NVIDIA driver to >= 580.65.06, or install a CUDA 12 build: `cuda-version 12.*`");
  // A soname: any 13.x runs on the 13 family's floor driver.
  const auto soname = judge("12.4", "13.0", true);
  EXPECT_EQ(soname.verdict, CudaRuntimeVerdict::needs_newer_driver);
  EXPECT_EQ(soname.min_driver->str(), "580");
}

TEST(CudaRuntimeRule, SonamesThatFollowTheToolkitMajor) {
  EXPECT_EQ(cuda_major_of_soname("libcudart.so.13"), 13);
  EXPECT_EQ(cuda_major_of_soname("libcublasLt.so.12"), 12);
  EXPECT_EQ(cuda_major_of_soname("libcufft.so.11"), 12);
  EXPECT_EQ(cuda_major_of_soname("libcudart.so.12.8.90"), 12);
  EXPECT_EQ(cuda_major_of_soname("libcusparse.so.12"), std::nullopt);
  EXPECT_EQ(cuda_major_of_soname("libc.so.6"), std::nullopt);
  EXPECT_EQ(cuda_major_of_soname("libcudart.so"), std::nullopt);
  EXPECT_EQ(cuda_major_of_soname("libcudart.so.x"), std::nullopt);
}

// A prefix holding lib/libadd.so (the committed sm_80 or sm_90 build, which
// needs libcudart.so.13) with a conda-meta record, and cuda-version 13.0.
class PrefixWithCudaLibrary : public ::testing::Test {
 protected:
  fs::path prefix() const { return directory_.path(); }
  prefix::PrefixRecord add_library(const std::string& committed, const std::string& as = "lib/libadd.so") {
    fs::create_directories((prefix() / as).parent_path());
    fs::copy_file(fs::path(GPUENV_SOURCE_DIR) / "tests/data/cuda_binary" / committed, prefix() / as);
    prefix::PrefixRecord record;
    record.package.name = "cudalib";
    record.package.version = "1.0";
    record.package.build = "0";
    record.files = {as};
    return record;
  }
  void write_record(const std::string& name, const std::string& version, const std::vector<std::string>& files) {
    fs::create_directories(prefix() / "conda-meta");
    std::ofstream(prefix() / "conda-meta" / (name + "-" + version + "-0.json"))
        << record_json(name, version, files);
  }
  static std::string record_json(const std::string& name, const std::string& version,
                                     const std::vector<std::string>& files) {
    std::string list;
    for (const auto& file : files) list += (list.empty() ? "\"" : ", \"") + file + "\"";
    return "{\"name\": \"" + name + "\", \"version\": \"" + version + "\", \"build\": \"0\", \"build_number\": 0, "
           "\"channel\": \"https://conda.anaconda.org/test\", \"subdir\": \"linux-64\", \"files\": [" + list + "]}";
  }
  std::vector<GpuToCheck> h200() const { return {{"GPU 0: NVIDIA H200", *cuda_binary::parse_gpu_architecture("sm_90")}}; }
  const cuda_binary::PtxIsaTable& ptx_table() {
    static std::string error;
    static const auto table = cuda_binary::PtxIsaTable::parse(system::metadata_file("ptx_isa_versions.tsv"), error);
    return *table;
  }

  gpuenv::testing::TempDirectory directory_;
};

TEST_F(PrefixWithCudaLibrary, AnSm80OnlyLibraryJustLinkedGivesOneWarningLine) {
  const auto record = add_library("libadd_sm80.so");
  DeviceCodeCheckOptions options;
  options.names_of_binaries_only = true;
  const auto check = check_device_code_of(prefix(), {record}, h200(), cuda_binary::CudaRelease{13, 0}, ptx_table(), options);
  const auto lines = device_code_warnings(prefix(), check, h200());
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0], "1 installed library cannot run on this machine's GPU (sm_90): lib/libadd.so (sm_80 only); "
                      "run gpuenv doctor -p " + prefix().string() + " for details");
}

TEST_F(PrefixWithCudaLibrary, AnSm90LibraryGivesNoWarning) {
  const auto record = add_library("libadd_sm90.so");
  const auto check = check_device_code_of(prefix(), {record}, h200(), cuda_binary::CudaRelease{13, 0}, ptx_table());
  EXPECT_EQ(check.libraries.size(), 1U);
  EXPECT_TRUE(device_code_warnings(prefix(), check, h200()).empty());
}

// NVIDIA's libcufftw.so.12 carries one sm_75 cubin that defines nothing;
// `gpuenv doctor` failed it on an H100 (found on the GPU machine, issue 30).
// A library whose cubins are all empty has no device code to judge.
TEST_F(PrefixWithCudaLibrary, ALibraryWhoseOnlyCubinsDefineNothingIsNotJudged) {
  const auto record = add_library("libhost_only_sm75.so", "lib/libcufftw.so.12");
  const auto check = check_device_code_of(prefix(), {record}, h200(), cuda_binary::CudaRelease{13, 0}, ptx_table());
  EXPECT_TRUE(check.libraries.empty());
  EXPECT_TRUE(check.everything_can_run());
  EXPECT_TRUE(device_code_warnings(prefix(), check, h200()).empty());
}

TEST_F(PrefixWithCudaLibrary, ManyFailingLibrariesAreNamedUpToThree) {
  std::vector<prefix::PrefixRecord> records;
  for (const auto* name : {"lib/liba.so", "lib/libb.so", "lib/libc.so", "lib/libd.so.1", "lib/libe.so"})
    records.push_back(add_library("libadd_sm80.so", name));
  const auto check = check_device_code_of(prefix(), records, h200(), cuda_binary::CudaRelease{13, 0}, ptx_table());
  const auto lines = device_code_warnings(prefix(), check, h200());
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_NE(lines[0].find("5 installed libraries cannot run on this machine's GPU (sm_90): lib/liba.so (sm_80 only), "
                          "lib/libb.so (sm_80 only), lib/libc.so (sm_80 only), and 2 more;"),
            std::string::npos)
      << lines[0];
}

TEST_F(PrefixWithCudaLibrary, OnlyFilesNamedLikeBinariesAreOpenedAfterAnInstall) {
  // A CUDA library under a name no binary has (share/...txt) is not looked at.
  const auto record = add_library("libadd_sm80.so", "share/cudalib/notes.txt");
  DeviceCodeCheckOptions options;
  options.names_of_binaries_only = true;
  const auto check = check_device_code_of(prefix(), {record}, h200(), cuda_binary::CudaRelease{13, 0}, ptx_table(), options);
  EXPECT_EQ(check.files_examined, 0U);
  const auto thorough = check_device_code_of(prefix(), {record}, h200(), cuda_binary::CudaRelease{13, 0}, ptx_table());
  EXPECT_EQ(thorough.files_examined, 1U);
}

TEST_F(PrefixWithCudaLibrary, ACuda13EnvironmentCannotRunOnACuda12Driver) {
  add_library("libadd_sm90.so");
  write_record("cudalib", "1.0", {"lib/libadd.so"});
  write_record("cuda-version", "13.0", {});
  const auto check = check_cuda_runtime(prefix(), CudaVersion{12, 4}, tables());
  EXPECT_FALSE(check.everything_can_run());
  ASSERT_EQ(check.judgements.size(), 2U);
  EXPECT_EQ(check.judgements[0].need.requirement, "cuda-version 13.0");
  EXPECT_EQ(check.judgements[0].need.needed_by.at(0), "cuda-version-13.0-0");
  EXPECT_EQ(check.judgements[1].need.requirement, "libcudart.so.13");
  EXPECT_EQ(check.judgements[1].need.needed_by.at(0), "lib/libadd.so (cudalib-1.0-0)");
  EXPECT_EQ(check.judgements[1].verdict, CudaRuntimeVerdict::needs_newer_driver);

  const auto on_13 = check_cuda_runtime(prefix(), CudaVersion{13, 0}, tables());
  EXPECT_TRUE(on_13.everything_can_run());
  EXPECT_EQ(on_13.judgements.size(), 2U);
  // Driver unknown: nothing judged, nothing failed.
  EXPECT_TRUE(check_cuda_runtime(prefix(), std::nullopt, tables()).judgements.empty());
}

TEST(DoctorMachine, DriverVersionsAndGpuOptionsAreReadStrictly) {
  EXPECT_EQ(cuda_release_of("12.4"), (cuda_binary::CudaRelease{12, 4}));
  EXPECT_EQ(cuda_release_of("13"), (cuda_binary::CudaRelease{13, 0}));
  EXPECT_FALSE(cuda_release_of(""));
  EXPECT_FALSE(cuda_release_of("abc"));
  EXPECT_TRUE(load_ptx_isa_table().has_value());

  // --gpu decides the GPUs whatever this machine has; a bad one says how to write it.
  const auto env = util::fixed_environment({{"CONDA_OVERRIDE_CUDA", "12.4"}, {"CONDA_OVERRIDE_CUDA_ARCH", "8.0"}});
  const auto asked = gpus_to_judge({"sm_90", "8.6"}, env);
  ASSERT_TRUE(asked) << asked.error().message;
  ASSERT_EQ(asked->gpus.size(), 2u);
  EXPECT_EQ(asked->gpus[0].arch.sm_name(), "sm_90");
  EXPECT_EQ(asked->gpus[1].arch.sm_name(), "sm_86");
  EXPECT_EQ(asked->driver_cuda, (cuda_binary::CudaRelease{12, 4}));
  const auto bad = gpus_to_judge({"volta"}, env);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("write sm_86"), std::string::npos) << bad.error().message;

  // Without --gpu and without a detected device, __cuda_arch stands in.
  const auto from_override = gpus_to_judge({}, env);
  ASSERT_TRUE(from_override) << from_override.error().message;
  ASSERT_EQ(from_override->gpus.size(), 1u);
  EXPECT_EQ(from_override->gpus[0].arch.sm_name(), "sm_80");
  // Nothing at all: no GPU to judge for, which is not an error (doctor still
  // checks that the files load, and says the GPU code is not judged).
  const auto none = gpus_to_judge({}, util::fixed_environment({{"CONDA_OVERRIDE_CUDA", ""}}));
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->gpus.empty());
  EXPECT_FALSE(none->driver_cuda);
}

}  // namespace
}  // namespace gpuenv::environment
