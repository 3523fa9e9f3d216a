// recipes/cuda-*: cuda-version and the CUDA component packages built from
// NVIDIA's wheels on PyPI, for CUDA 12.9 and 13.0, into one channel (each
// package's own tests run as it builds: nvcc --version, a kernel compiled
// and linked by the packaged nvcc, libcudart linked and run, headers
// present); then compiler('cuda') resolves in that channel: the stencil
// example builds for CUDA 13.0 with the channel's cuda-nvcc, not a
// toolkit of the machine's. 12.9 has the components the cu12 wheels carry
// and no cuda-nvcc. The wheels (~150 MB) are cached in the gpuenv source
// cache under GPUENV_CUDA_RECIPES_CACHE (default <build>/cuda-recipes-cache),
// so a warm run downloads nothing. Skipped, saying why, when PyPI cannot be
// reached, unless CI is set (CI must reach it).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::read_file;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::run_program;

// In the order they depend on each other: each builds against the ones before.
const std::vector<std::string> kRecipes = {"cuda-version", "cuda-cccl", "cuda-cudart",
                                           "cuda-crt",     "cuda-nvvm", "cuda-nvcc"};

fs::path source_cache() {
  if (const char* given = std::getenv("GPUENV_CUDA_RECIPES_CACHE"); given != nullptr && *given != '\0') return given;
  return fs::path(GPUENV_BINARY).parent_path().parent_path().parent_path() / "cuda-recipes-cache";
}

bool pypi_reachable() {
  const auto probe = run_program("/bin/sh", {"-c", "exec python3 -c \"import urllib.request; "
                                                   "urllib.request.urlopen('https://files.pythonhosted.org/', "
                                                   "timeout=15)\""});
  return probe.exit_code == 0;
}

// One test, in steps: ctest runs each TEST in a process of its own, and
// building the channel is what costs (minutes; the checks take seconds).
class CudaRecipes : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* ci = std::getenv("CI");
    if ((ci == nullptr || std::string(ci) != "true") && !pypi_reachable()) {
      GTEST_SKIP() << "PyPI (files.pythonhosted.org) is not reachable: the CUDA recipes build from NVIDIA's wheels "
                      "there";
    }
    machine_ = &machine;
    const auto start = std::chrono::steady_clock::now();
    for (const auto& recipe : kRecipes) {
      const auto built = gpuenv(
          {"build", std::string(GPUENV_SOURCE_DIR) + "/recipes/" + recipe, "--output-dir", channel().string(),
           "--override-channels", "--package-format", "conda:3"});
      ASSERT_EQ(built.exit_code, 0) << recipe << ": " << built.err << built.out;
    }
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "built the CUDA recipes in " << seconds << " s\n";
  }

  static CommandOutput gpuenv(const std::vector<std::string>& args, std::vector<std::string> extra = {}) {
    extra.push_back("GPUENV_CACHE_DIR=" + source_cache().string());
    // PyPI through the caller's proxy, when there is one.
    for (const char* name : {"https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"}) {
      if (const char* value = std::getenv(name)) extra.push_back(std::string(name) + "=" + value);
    }
    return run_gpuenv(args, machine_->env(extra));
  }
  static fs::path channel() { return *machine_ / "cuda-channel"; }

  // name-version of each package a dry-run create would link, or the error.
  static CommandOutput plan(const std::vector<std::string>& specs, const std::string& cuda) {
    std::vector<std::string> args = {"create", "--dry-run", "-p", (*machine_ / "plan").string(),
                                     "-c", channel().string(), "--override-channels"};
    args.insert(args.end(), specs.begin(), specs.end());
    return gpuenv(args, {"CONDA_OVERRIDE_CUDA=" + cuda});
  }

  gpuenv::testing::SolveCliMachine machine;
  static inline const gpuenv::testing::SolveCliMachine* machine_ = nullptr;

  void the_channel_holds_the_components_of_both_releases() const;
  void cuda_version_keeps_the_driver_at_the_releases_major_version() const;
  void cuda_version_keeps_every_component_on_one_release() const;
  void compiler_cuda_resolves_in_the_channel_for_cuda_13() const;
};

void CudaRecipes::the_channel_holds_the_components_of_both_releases() const {
  std::string listing = "\n";  // each name follows a newline
  for (const auto& subdir : {"noarch", "linux-64"}) {
    for (const auto& entry : fs::directory_iterator(channel() / subdir)) {
      if (entry.path().extension() == ".conda") listing += entry.path().filename().string() + "\n";
    }
  }
  for (const std::string package :
       {"cuda-version-12.9-", "cuda-version-13.0-", "cuda-cccl_linux-64-12.9.27-", "cuda-cccl_linux-64-13.0.85-",
        "cuda-cccl-12.9.27-", "cuda-cccl-13.0.85-", "cuda-cudart-12.9.79-", "cuda-cudart-dev-12.9.79-",
        "cuda-cudart-static-12.9.79-", "cuda-cudart-13.0.96-", "cuda-cudart-dev-13.0.96-",
        "cuda-cudart-static-13.0.96-", "cuda-crt-dev_linux-64-12.9.86-", "cuda-crt-dev_linux-64-13.0.88-",
        "cuda-crt-tools-13.0.88-", "cuda-crt-13.0.88-", "cuda-nvvm-impl-12.9.86-",
        "cuda-nvvm-dev_linux-64-12.9.86-", "cuda-nvvm-tools-13.0.88-", "cuda-nvvm-impl-13.0.88-",
        "cuda-nvvm-dev_linux-64-13.0.88-", "cuda-nvvm-13.0.88-", "cuda-nvcc-tools-13.0.88-",
        "cuda-nvcc-dev_linux-64-13.0.88-", "cuda-nvcc-impl-13.0.88-", "cuda-nvcc_linux-64-13.0.88-"}) {
    EXPECT_NE(listing.find("\n" + package), std::string::npos) << package << " missing from\n" << listing;
  }
  // No nvcc 12.9 is made up from wheels that do not have one.
  EXPECT_EQ(listing.find("cuda-nvcc-tools-12.9"), std::string::npos) << listing;
  EXPECT_EQ(listing.find("cuda-nvvm-tools-12.9"), std::string::npos) << listing;
}

void CudaRecipes::cuda_version_keeps_the_driver_at_the_releases_major_version() const {
  const auto refused = plan({"cuda-version=13.0"}, "12.4");
  EXPECT_NE(refused.exit_code, 0) << refused.out;
  EXPECT_NE(refused.err.find("constrains __cuda >=13"), std::string::npos) << refused.err;
  EXPECT_EQ(plan({"cuda-version=13.0"}, "13.0").exit_code, 0);
  EXPECT_EQ(plan({"cuda-version=12.9"}, "12.4").exit_code, 0);
}

void CudaRecipes::cuda_version_keeps_every_component_on_one_release() const {
  const auto mixed = plan({"cuda-version=12.9", "cuda-cudart-dev=13.0"}, "13.0");
  EXPECT_NE(mixed.exit_code, 0) << mixed.out;
  const auto twelve = plan({"cuda-version=12.9", "cuda-cudart-dev", "cuda-nvvm-impl", "cuda-crt-dev_linux-64"}, "");
  EXPECT_EQ(twelve.exit_code, 0) << twelve.err;
  EXPECT_NE(twelve.out.find("cuda-cudart-dev"), std::string::npos) << twelve.out;
  EXPECT_NE(twelve.out.find("12.9.79"), std::string::npos) << twelve.out;
  // What 12.9 lacks: the compiler.
  const auto compiler = plan({"cuda-nvcc_linux-64=12.9"}, "");
  EXPECT_NE(compiler.exit_code, 0) << compiler.out;
}

void CudaRecipes::compiler_cuda_resolves_in_the_channel_for_cuda_13() const {
  const auto output = *machine_ / "stencil-output";
  const auto built = gpuenv({"build", std::string(GPUENV_SOURCE_DIR) + "/recipes/examples/stencil", "--output-dir",
                             output.string(), "-c", channel().string(), "--override-channels", "--variant",
                             "cuda_compiler_version=13.0", "--package-format", "conda:3"},
                            {"CUDA_HOME=", "PATH=/usr/bin:/bin"});
  ASSERT_EQ(built.exit_code, 0) << built.err << built.out;
  EXPECT_EQ(built.err.find("the channels do not provide cuda-nvcc_linux-64"), std::string::npos) << built.err;
  std::string cuda_log;
  for (const auto& entry : fs::directory_iterator(output / "bld")) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("libstencil-1.0.0-cuda130") && entry.path().extension() == ".log") {
      cuda_log = read_file(entry.path());
    }
  }
  ASSERT_FALSE(cuda_log.empty()) << built.err;
  // The build environment came from the channel: its nvcc, not the machine's.
  EXPECT_NE(cuda_log.find("  cuda-nvcc_linux-64 13.0.88 "), std::string::npos) << cuda_log;
  EXPECT_NE(cuda_log.find("  cuda-nvcc-tools 13.0.88 "), std::string::npos) << cuda_log;
  EXPECT_EQ(cuda_log.find("__cuda_compiler"), std::string::npos) << cuda_log;
  EXPECT_NE(cuda_log.find("CUDA check: 1 files with device code"), std::string::npos) << cuda_log;
}

TEST_F(CudaRecipes, BuildForCuda129And130AndCompilerCudaResolvesInTheChannel) {
  the_channel_holds_the_components_of_both_releases();
  cuda_version_keeps_the_driver_at_the_releases_major_version();
  cuda_version_keeps_every_component_on_one_release();
  compiler_cuda_resolves_in_the_channel_for_cuda_13();
}

}  // namespace
