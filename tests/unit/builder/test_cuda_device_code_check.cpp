// The CUDA check after a build: per file, SASS or PTX for every
// architecture asked for and PTX for the highest. On plain DeviceCode
// lists, and on libraries nvcc compiles here (skipped, saying why, on a
// machine without nvcc).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/builder/cuda_build.hpp"
#include "gpuenv/builder/cuda_device_code_check.hpp"
#include "gpuenv/builder/cuda_toolkit.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gpuenv::build;
using gpuenv::cuda_binary::CodeKind;
using gpuenv::cuda_binary::DeviceCode;
using gpuenv::recipe::Value;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

DeviceCode code(CodeKind kind, int architecture, bool registered = true) {
  DeviceCode entry;
  entry.kind = kind;
  entry.arch.number = architecture;
  entry.registered = registered;
  return entry;
}

TEST(DeviceCodeGap, SassOrPtxForEachAndPtxForTheHighestPasses) {
  const std::vector<DeviceCode> entries = {code(CodeKind::sass, 75), code(CodeKind::ptx, 80),
                                           code(CodeKind::sass, 90), code(CodeKind::ptx, 90)};
  EXPECT_FALSE(device_code_gap("lib/libk.so", entries, {75, 80, 90}));
}

TEST(DeviceCodeGap, NamesTheFileTheMissingArchitecturesAndTheMissingPtx) {
  const std::vector<DeviceCode> entries = {code(CodeKind::sass, 75), code(CodeKind::sass, 80),
                                           code(CodeKind::lto_ir, 90), code(CodeKind::ptx, 90, false)};
  const auto gap = device_code_gap("lib/libk.so", entries, {75, 80, 86, 90});
  ASSERT_TRUE(gap);
  EXPECT_EQ(gap->without_code, (std::vector<int>{86, 90}));
  EXPECT_EQ(gap->without_ptx, 90);
  EXPECT_EQ(gap->describe(),
            "lib/libk.so lacks sm_86, sm_90 (neither SASS nor PTX) and PTX for compute_90 (the highest architecture "
            "asked for); it holds sm_75, sm_80");
}

TEST(DeviceCodeGap, SassForTheHighestWithoutPtxIsAGap) {
  const auto gap = device_code_gap("bin/tool", {code(CodeKind::sass, 80), code(CodeKind::sass, 90)}, {80, 90});
  ASSERT_TRUE(gap);
  EXPECT_TRUE(gap->without_code.empty());
  EXPECT_EQ(gap->without_ptx, 90);
  EXPECT_EQ(gap->describe(), "bin/tool lacks PTX for compute_90 (the highest architecture asked for); it holds "
                             "sm_80, sm_90");
}

TEST(DeviceCodeGap, FilesWithoutDeviceCodeAreNotChecked) {
  EXPECT_FALSE(device_code_gap("lib/libplain.so", {}, {75, 90}));
  EXPECT_FALSE(device_code_gap("lib/liblto.a", {code(CodeKind::lto_ir, 90)}, {75, 90}));
}

TEST(CudaCheckOptOut, ExtraGpuenvCudaCheckFalse) {
  const auto extra = [](Value value) {
    return Value::map({{"gpuenv", Value::map({{"cuda_check", std::move(value)}})}});
  };
  EXPECT_TRUE(cuda_check_wanted(Value::undefined()));
  EXPECT_TRUE(cuda_check_wanted(Value::map({{"recipe-maintainers", Value::list({})}})));
  EXPECT_TRUE(cuda_check_wanted(extra(Value::boolean(true))));
  EXPECT_FALSE(cuda_check_wanted(extra(Value::boolean(false))));
  EXPECT_FALSE(cuda_check_wanted(extra(Value::string("false"))));
}

// nvcc of any version on this machine, or empty.
fs::path machine_nvcc() {
  const auto toolkits = machine_cuda_toolkits("", process_cuda_toolkit_search());
  return toolkits.empty() ? fs::path() : toolkits.front().nvcc;
}

NewPrefixFile package_file(const fs::path& source, const std::string& path) {
  NewPrefixFile file;
  file.source = source;
  file.entry.path = path;
  return file;
}

class DeviceCodeCheckOfNvccOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc = machine_nvcc();
    if (nvcc.empty()) GTEST_SKIP() << "no nvcc on this machine (CUDA_HOME, /usr/local/cuda*, PATH): the check on real "
                                      "binaries needs one to compile them";
    write_text_file(dir / "scale.cu",
                    "__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n"
                    "extern \"C\" void launch(float* x) { scale<<<1, 32>>>(x, 2.0f); }\n");
    // SASS for 75 and 80, PTX for 80 only.
    const auto built = gpuenv::testing::run_program(
        nvcc.string(), {"-shared", "-Xcompiler", "-fPIC", "-gencode", "arch=compute_75,code=sm_75", "-gencode",
                        "arch=compute_80,code=[sm_80,compute_80]", (dir / "scale.cu").string(), "-o",
                        (dir / "libscale.so").string()});
    ASSERT_EQ(built.exit_code, 0) << built.err;
    write_text_file(dir / "plain.txt", "no device code\n");
    files = {package_file(dir / "libscale.so", "lib/libscale.so"), package_file(dir / "plain.txt", "share/plain.txt")};
  }
  TempDirectory dir;
  fs::path nvcc;
  std::vector<NewPrefixFile> files;
};

TEST_F(DeviceCodeCheckOfNvccOutput, WhatWasBuiltPasses) {
  const auto check = check_device_code(files, {75, 80});
  EXPECT_TRUE(check.passed()) << check.report();
  EXPECT_EQ(check.files_with_device_code, 1u);
}

TEST_F(DeviceCodeCheckOfNvccOutput, AnArchitectureNotBuiltFailsNamingFileAndArchitecture) {
  const auto check = check_device_code(files, {75, 80, 90});
  ASSERT_FALSE(check.passed());
  ASSERT_EQ(check.gaps.size(), 1u);
  EXPECT_EQ(check.gaps[0].describe(),
            "lib/libscale.so lacks sm_90 (neither SASS nor PTX) and PTX for compute_90 (the highest architecture asked "
            "for); it holds sm_75, sm_80, compute_80");
}

TEST_F(DeviceCodeCheckOfNvccOutput, PtxOnlyForALowerArchitectureIsNotPtxForTheHighest) {
  const auto check = check_device_code(files, {75});
  ASSERT_EQ(check.gaps.size(), 1u);
  EXPECT_EQ(check.gaps[0].without_ptx, 75);
  EXPECT_TRUE(check.gaps[0].without_code.empty());
}

TEST_F(DeviceCodeCheckOfNvccOutput, CheckCudaPackageFailsTheBuildUnlessTheRecipeOptsOut) {
  CudaBuild cuda;
  cuda.architectures = *parse_cuda_archs("80;90");
  std::string logged;
  const auto log = [&logged](const std::string& line) { logged += line + "\n"; };
  const auto failed = check_cuda_package(cuda, files, Value::undefined(), log);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, BuildErrorKind::cuda_check);
  EXPECT_NE(failed.error().message.find("lib/libscale.so lacks sm_90"), std::string::npos) << failed.error().message;
  EXPECT_NE(failed.error().message.find("cuda_check: false"), std::string::npos) << failed.error().message;
  const auto opted_out = Value::map({{"gpuenv", Value::map({{"cuda_check", Value::boolean(false)}})}});
  const auto skipped = check_cuda_package(cuda, files, opted_out, log);
  ASSERT_TRUE(skipped);
  EXPECT_EQ(*skipped, "skipped (extra.gpuenv.cuda_check: false)");
  EXPECT_NE(logged.find("CUDA check: skipped"), std::string::npos) << logged;
}

TEST_F(DeviceCodeCheckOfNvccOutput, CheckCudaPackageSaysWhatPassedForTheBuildsResult) {
  CudaBuild cuda;
  cuda.architectures = *parse_cuda_archs("75;80");
  const auto passed = check_cuda_package(cuda, files, Value::undefined(), [](const std::string&) {});
  ASSERT_TRUE(passed) << passed.error().message;
  EXPECT_EQ(*passed, "passed: 1 file with device code for 75-real;80");
}

}  // namespace
