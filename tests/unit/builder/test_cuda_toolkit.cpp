// compiler('cuda') without the channels' packages: the architecture list a
// variant builds for, the machine toolkit of the variant's version (fake
// toolkits in a temporary install root, so the search order and the refusal
// of a wrong version are tested on any machine), and the script variables.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/builder/compilers.hpp"
#include "gpuenv/builder/cuda_architectures.hpp"
#include "gpuenv/builder/cuda_toolkit.hpp"
#include "gpuenv/environment/plan.hpp"
#include "gpuenv/util/environment.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gpuenv::build;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

TEST(CudaArchitectures, VariantListGivesSassForAllAndPtxForTheHighest) {
  const auto list = parse_cuda_archs("90; 75;80;80");
  ASSERT_TRUE(list) << list.error();
  EXPECT_EQ(list->numbers, (std::vector<int>{75, 80, 90}));
  EXPECT_EQ(list->cudaarchs, "75-real;80-real;90");
}

TEST(CudaArchitectures, WrittenSuffixesAreKeptAndPrefixesRead) {
  const auto list = parse_cuda_archs("sm_80;90-real;90-virtual");
  ASSERT_TRUE(list) << list.error();
  EXPECT_EQ(list->numbers, (std::vector<int>{80, 90}));
  EXPECT_EQ(list->cudaarchs, "sm_80;90-real;90-virtual");
}

TEST(CudaArchitectures, MalformedListsAreRefusedNamingTheEntry) {
  const auto word = parse_cuda_archs("75;all-major");
  ASSERT_FALSE(word);
  EXPECT_NE(word.error().find("'all-major'"), std::string::npos) << word.error();
  EXPECT_FALSE(parse_cuda_archs(" ; "));
  EXPECT_FALSE(parse_cuda_archs("7"));
  EXPECT_FALSE(parse_cuda_archs("99999"));
}

TEST(CudaArchitectures, DefaultsFollowWhatEachToolkitCanBuild) {
  const auto cuda13 = default_cuda_archs("13.0");
  EXPECT_EQ(cuda13.numbers.front(), 75);  // CUDA 13 dropped Maxwell to Volta
  EXPECT_EQ(cuda13.numbers.back(), 120);
  EXPECT_EQ(cuda13.cudaarchs, "75-real;80-real;86-real;89-real;90-real;100-real;110-real;120");
  const auto cuda129 = default_cuda_archs("12.9");
  EXPECT_EQ(cuda129.numbers.front(), 50);
  EXPECT_EQ(cuda129.numbers.back(), 120);
  EXPECT_EQ(default_cuda_archs("12.4").numbers.back(), 90);  // Blackwell needs 12.8
  EXPECT_EQ(default_cuda_archs("11.8").numbers.back(), 90);
}

TEST(CudaToolkitVersion, ReadFromNvccOutputAndVersionJson) {
  EXPECT_EQ(nvcc_release("Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0"), "13.0");
  EXPECT_EQ(nvcc_release("Cuda compilation tools, release 11.8, V11.8.89"), "11.8");
  EXPECT_FALSE(nvcc_release("gcc (Debian 12.2.0-14) 12.2.0"));
  EXPECT_FALSE(nvcc_release("release x.y"));
  EXPECT_EQ(version_json_release(R"({"cuda": {"name": "CUDA SDK", "version": "12.9.1"}})"), "12.9");
  EXPECT_FALSE(version_json_release(R"({"cuda": {"version": 12}})"));
  EXPECT_FALSE(version_json_release("{not json"));
}

TEST(CudaToolkitVersion, VariantVersionMatchesByComponents) {
  EXPECT_TRUE(cuda_version_matches("12.9", "12.9"));
  EXPECT_TRUE(cuda_version_matches("12", "12.9"));
  EXPECT_TRUE(cuda_version_matches("", "13.0"));
  EXPECT_TRUE(cuda_version_matches("None", "13.0"));
  EXPECT_FALSE(cuda_version_matches("12.9", "13.0"));
  EXPECT_FALSE(cuda_version_matches("1", "13.0"));
  EXPECT_FALSE(cuda_version_matches("12.9", "12.90"));
}

// A toolkit directory whose nvcc prints `version` the way nvcc does.
fs::path fake_toolkit(const fs::path& root, const std::string& version, bool with_version_json) {
  const auto nvcc = root / "bin/nvcc";
  write_text_file(nvcc, "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                        "echo 'Cuda compilation tools, release " + version + ", V" + version + ".1'\n");
  fs::permissions(nvcc, fs::perms::owner_all);
  if (with_version_json) {
    write_text_file(root / "version.json", R"({"cuda": {"name": "CUDA SDK", "version": ")" + version + R"(.1"}})");
  }
  return nvcc;
}

TEST(MachineCudaToolkit, FindsTheVariantsVersionAmongThePlacesSearched) {
  TempDirectory dir;
  fake_toolkit(dir / "local/cuda-13.0", "13.0", true);
  fs::create_directory_symlink("cuda-13.0", dir / "local/cuda");
  const auto nvcc129 = fake_toolkit(dir / "opt/cuda129", "12.9", false);
  CudaToolkitSearch search;
  search.install_root = dir / "local";
  search.path = (dir / "opt/cuda129/bin").string() + ":/nonexistent";

  const auto found = find_machine_cuda_toolkit("12.9", search);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->nvcc, nvcc129);
  EXPECT_EQ(found->version, "12.9");
  EXPECT_EQ(found->root, dir / "opt/cuda129");

  const auto newest = find_machine_cuda_toolkit("13.0", search);
  ASSERT_TRUE(newest) << newest.error().message;
  EXPECT_EQ(newest->root, dir / "local/cuda-13.0");
  // /usr/local/cuda is the same toolkit as cuda-13.0: listed once.
  EXPECT_EQ(machine_cuda_toolkits("13.0", search).size(), 2u);
}

TEST(MachineCudaToolkit, CudaHomeComesFirst) {
  TempDirectory dir;
  fake_toolkit(dir / "local/cuda-12.9", "12.9", true);
  fake_toolkit(dir / "home129", "12.9", false);
  CudaToolkitSearch search;
  search.install_root = dir / "local";
  search.cuda_home = (dir / "home129").string();
  const auto found = find_machine_cuda_toolkit("12.9", search);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->root, dir / "home129");
}

TEST(MachineCudaToolkit, AnotherVersionIsRefusedNamingWhatWasFound) {
  TempDirectory dir;
  const auto nvcc13 = fake_toolkit(dir / "local/cuda-13.0", "13.0", false);
  CudaToolkitSearch search;
  search.install_root = dir / "local";
  search.path = (dir / "local/cuda-13.0/bin").string();
  const auto found = find_machine_cuda_toolkit("12.9", search);
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().kind, BuildErrorKind::environment);
  const auto& message = found.error().message;
  EXPECT_NE(message.find("this variant needs CUDA 12.9's nvcc; found 13.0 at " + nvcc13.string()), std::string::npos)
      << message;
  EXPECT_NE(message.find("set CUDA_HOME"), std::string::npos) << message;
}

TEST(MachineCudaToolkit, NoToolkitAtAllSaysWhereItLooked) {
  TempDirectory dir;
  CudaToolkitSearch search;
  search.install_root = dir / "local";
  search.path = (dir / "bin").string();
  const auto found = find_machine_cuda_toolkit("13.0", search);
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().message.find("found none in $CUDA_HOME"), std::string::npos) << found.error().message;
}

TEST(MachineCudaToolkit, SolverSeesItAsAVirtualPackage) {
  const CudaToolkit toolkit{"/usr/local/cuda-12.9", "/usr/local/cuda-12.9/bin/nvcc", "12.9"};
  EXPECT_EQ(cuda_compiler_virtual_package(toolkit).str(), "__cuda_compiler=12.9=0");
  EXPECT_EQ(cuda_compiler_requirement("12.9"), "__cuda_compiler 12.9.*");
  EXPECT_EQ(cuda_compiler_requirement(""), "__cuda_compiler");
}

// The solve of the build environment sees the machine toolkit: a variant's
// `__cuda_compiler 12.9.*` cannot be met by CUDA 13.0's nvcc.
TEST(MachineCudaToolkit, TheSolverRefusesAToolkitOfAnotherVersion) {
  TempDirectory dir;
  for (const char* subdir : {"noarch", "linux-64"}) {
    write_text_file(dir / "channel" / subdir / "repodata.json",
                    std::string(R"({"info": {"subdir": ")") + subdir + R"("}, "packages": {}, "packages.conda": {}})");
  }
  gpuenv::environment::SettingsOverrides overrides;
  overrides.channels = {"file://" + (dir / "channel").string()};
  overrides.override_channels = true;
  overrides.platform = "linux-64";
  auto settings = gpuenv::environment::settings_from(
      {}, overrides,
      gpuenv::util::fixed_environment({{"HOME", (dir / "home").string()},
                                       {"GPUENV_ROOT_PREFIX", (dir / "root").string()},
                                       {"GPUENV_CACHE_DIR", (dir / "cache").string()},
                                       {"CONDA_OVERRIDE_CUDA", ""}}));
  ASSERT_TRUE(settings) << settings.error().message;
  const CudaToolkit toolkit{"/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", "13.0"};
  settings->extra_virtual_packages = {cuda_compiler_virtual_package(toolkit)};
  gpuenv::environment::ChangeRequest request;
  request.kind = gpuenv::environment::ChangeKind::create;
  request.prefix = dir / "build_env";
  request.dry_run = true;
  gpuenv::environment::Reporter reporter;

  request.specs = {cuda_compiler_requirement("12.9")};
  const auto refused = gpuenv::environment::plan(*settings, request, reporter);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("__cuda_compiler"), std::string::npos) << refused.error().message;

  request.specs = {cuda_compiler_requirement("13.0")};
  const auto planned = gpuenv::environment::plan(*settings, request, reporter);
  EXPECT_TRUE(planned) << planned.error().message;

  settings->extra_virtual_packages.clear();
  EXPECT_FALSE(gpuenv::environment::plan(*settings, request, reporter));
}

TEST(MachineCudaToolkit, ScriptVariables) {
  const CudaToolkit toolkit{"/opt/cuda", "/opt/cuda/bin/nvcc", "13.0"};
  const auto archs = parse_cuda_archs("75;90");
  ASSERT_TRUE(archs);
  const auto machine = cuda_script_variables(*archs, "13.0", &toolkit);
  EXPECT_EQ(machine.at("CUDAARCHS"), "75-real;90");
  EXPECT_EQ(machine.at("NVCC"), "/opt/cuda/bin/nvcc");
  EXPECT_EQ(machine.at("CUDACXX"), "/opt/cuda/bin/nvcc");
  EXPECT_EQ(machine.at("CUDA_HOME"), "/opt/cuda");
  EXPECT_EQ(machine.at("CUDA_PATH"), "/opt/cuda");
  EXPECT_EQ(machine.at("cuda_compiler_version"), "13.0");
  // A compiler package's activation sets NVCC and CUDA_HOME itself.
  const auto channel = cuda_script_variables(*archs, "13.0", nullptr);
  EXPECT_FALSE(channel.contains("NVCC"));
  EXPECT_FALSE(channel.contains("CUDA_HOME"));
  EXPECT_EQ(channel.at("CUDAARCHS"), "75-real;90");
}

TEST(CompilerRequirements, CudaCompilerPackagesAreRecognised) {
  gpuenv::recipe::Variant variant;
  variant["cuda_compiler"] = gpuenv::recipe::Value::string("nvcc");
  const auto split = split_build_requirements(
      {"cuda-nvcc_linux-64 =12.9", "nvcc_linux-64 =11.8", "gxx_linux-64", "cmake", "cuda-nvcc-tools"}, variant,
      "linux-64");
  ASSERT_EQ(split.compilers.size(), 3u);
  EXPECT_EQ(split.compilers[0].language, CompilerLanguage::cuda);
  EXPECT_EQ(split.compilers[1].language, CompilerLanguage::cuda);
  EXPECT_EQ(split.compilers[2].language, CompilerLanguage::cxx);
  EXPECT_EQ(split.others, (std::vector<std::string>{"cmake", "cuda-nvcc-tools"}));
}

}  // namespace
