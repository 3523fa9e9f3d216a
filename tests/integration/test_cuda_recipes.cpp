// recipes/cuda-*: cuda-version and the CUDA component packages built from
// NVIDIA's wheels on PyPI, for CUDA 12.4, 12.9 and 13.0, into one channel
// (each package's own tests run as it builds: nvcc --version, a kernel
// compiled and linked by the packaged nvcc, libcudart linked and run,
// headers present); then compiler('cuda') resolves in that channel: the
// stencil example builds for CUDA 12.4 and for 13.0 with the channel's
// cuda-nvcc, not a toolkit of the machine's. 12.4 takes what the cu12 wheels
// lack (nvcc, cicc, static runtime, CCCL) from Debian's packages of NVIDIA's
// 12.4.1 files; 12.9 has the components the cu12 wheels carry and no
// cuda-nvcc. The wheels and .debs (~1.2 GB, nearly all of it Debian's
// nvidia-cuda-dev) are cached in the gpuenv source cache under
// GPUENV_CUDA_RECIPES_CACHE (default <build>/cuda-recipes-cache), so a warm
// run downloads nothing. Skipped, saying why, when PyPI or Debian cannot be
// reached, unless CI is set (CI must reach them).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gpuenv/package/extract.hpp"
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
const std::vector<std::string> kRecipes = {"cuda-version", "cuda-cccl", "cuda-crt",
                                           "cuda-cudart",  "cuda-nvvm", "cuda-nvcc"};

fs::path source_cache() {
  if (const char* given = std::getenv("GPUENV_CUDA_RECIPES_CACHE"); given != nullptr && *given != '\0') return given;
  return fs::path(GPUENV_BINARY).parent_path().parent_path().parent_path() / "cuda-recipes-cache";
}

bool reachable(const std::string& url) {
  const auto probe = run_program("/bin/sh", {"-c", "exec python3 -c \"import urllib.request; "
                                                   "urllib.request.urlopen('" + url + "', timeout=15)\""});
  return probe.exit_code == 0;
}

// One test, in steps: ctest runs each TEST in a process of its own, and
// building the channel is what costs (minutes; the checks take seconds).
class CudaRecipes : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* ci = std::getenv("CI");
    if ((ci == nullptr || std::string(ci) != "true") &&
        (!reachable("https://files.pythonhosted.org/") || !reachable("https://deb.debian.org/debian/"))) {
      GTEST_SKIP() << "PyPI (files.pythonhosted.org) or Debian (deb.debian.org) is not reachable: the CUDA recipes "
                      "build from NVIDIA's wheels and Debian's packages there";
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

  void the_channel_holds_the_components_of_every_release() const;
  void cuda_version_keeps_the_driver_at_the_releases_major_version() const;
  void cuda_version_keeps_every_component_on_one_release() const;
  void compiler_cuda_resolves_in_the_channel(const std::string& cuda, const std::string& nvcc_version) const;
};

void CudaRecipes::the_channel_holds_the_components_of_every_release() const {
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
        "cuda-nvcc-dev_linux-64-13.0.88-", "cuda-nvcc-impl-13.0.88-", "cuda-nvcc_linux-64-13.0.88-",
        "cuda-nvcc-13.0.88-",  // the metapackage users install
        // 12.4: all of them, the compiler included.
        "cuda-version-12.4-", "cuda-cccl_linux-64-12.4.127-", "cuda-cccl-12.4.127-", "cuda-cudart-12.4.127-",
        "cuda-cudart-dev-12.4.127-", "cuda-cudart-static-12.4.127-", "cuda-crt-dev_linux-64-12.4.131-",
        "cuda-crt-tools-12.4.131-", "cuda-crt-12.4.131-", "cuda-nvvm-tools-12.4.131-", "cuda-nvvm-impl-12.4.131-",
        "cuda-nvvm-dev_linux-64-12.4.131-", "cuda-nvvm-12.4.131-", "cuda-nvcc-tools-12.4.131-",
        "cuda-nvcc-dev_linux-64-12.4.131-", "cuda-nvcc-impl-12.4.131-", "cuda-nvcc_linux-64-12.4.131-",
        "cuda-nvcc-12.4.131-"}) {
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
  // 12.4 has it, on its own release throughout.
  const auto twelve_four = plan({"cuda-nvcc_linux-64=12.4"}, "12.4");
  EXPECT_EQ(twelve_four.exit_code, 0) << twelve_four.err;
  EXPECT_NE(twelve_four.out.find("12.4.127"), std::string::npos) << twelve_four.out;
  EXPECT_EQ(twelve_four.out.find("12.9."), std::string::npos) << twelve_four.out;
}

// The stencil example's CUDA build for `cuda` (and its CPU build) with the
// channel as the only channel, the machine's toolkit out of reach.
void CudaRecipes::compiler_cuda_resolves_in_the_channel(const std::string& cuda,
                                                        const std::string& nvcc_version) const {
  const auto output = *machine_ / ("stencil-output-" + cuda);
  const auto built = gpuenv({"build", std::string(GPUENV_SOURCE_DIR) + "/recipes/examples/stencil", "--output-dir",
                             output.string(), "-c", channel().string(), "--override-channels", "--variant",
                             "cuda_compiler_version=" + cuda, "--package-format", "conda:3"},
                            {"CUDA_HOME=", "PATH=/usr/bin:/bin"});
  ASSERT_EQ(built.exit_code, 0) << built.err << built.out;
  EXPECT_EQ(built.err.find("the channels do not provide cuda-nvcc_linux-64"), std::string::npos) << built.err;
  const std::string build_prefix = "libstencil-1.0.0-cuda" + cuda.substr(0, cuda.find('.')) +
                                   cuda.substr(cuda.find('.') + 1);
  std::string cuda_log;
  for (const auto& entry : fs::directory_iterator(output / "bld")) {
    const auto name = entry.path().filename().string();
    if (name.starts_with(build_prefix) && entry.path().extension() == ".log") cuda_log = read_file(entry.path());
  }
  ASSERT_FALSE(cuda_log.empty()) << built.err;
  // The build environment came from the channel: its nvcc, not the machine's.
  EXPECT_NE(cuda_log.find("  cuda-nvcc_linux-64 " + nvcc_version + " "), std::string::npos) << cuda_log;
  EXPECT_NE(cuda_log.find("  cuda-nvcc-tools " + nvcc_version + " "), std::string::npos) << cuda_log;
  EXPECT_EQ(cuda_log.find("__cuda_compiler"), std::string::npos) << cuda_log;
  EXPECT_NE(cuda_log.find("CUDA check: 1 files with device code"), std::string::npos) << cuda_log;

  // The package records it: the rendered recipe's build environment.
  fs::path package;
  for (const auto& entry : fs::directory_iterator(output / "linux-64")) {
    if (entry.path().filename().string().starts_with(build_prefix)) package = entry.path();
  }
  ASSERT_FALSE(package.empty()) << built.err;
  const auto extracted = *machine_ / ("stencil-extracted-" + cuda);
  gpuenv::package::extract_package(package, extracted);
  const auto rendered = YAML::LoadFile((extracted / "info/recipe/rendered_recipe.yaml").string());
  EXPECT_EQ(rendered["build_configuration"]["variant"]["cuda_compiler_version"].as<std::string>(), cuda);
  std::vector<std::string> build_environment;
  for (const auto& record : rendered["build_configuration"]["environments"]["build"]) {
    build_environment.push_back(record.as<std::string>());
  }
  const auto has = [&](const std::string& prefix) {
    return std::any_of(build_environment.begin(), build_environment.end(),
                       [&](const std::string& record) { return record.starts_with(prefix); });
  };
  EXPECT_TRUE(has("cuda-nvcc_linux-64 " + nvcc_version + " ")) << package;
  EXPECT_TRUE(has("cuda-version " + cuda + " ")) << package;
}

TEST_F(CudaRecipes, BuildFor124And129And130AndCompilerCudaResolvesInTheChannel) {
  the_channel_holds_the_components_of_every_release();
  cuda_version_keeps_the_driver_at_the_releases_major_version();
  cuda_version_keeps_every_component_on_one_release();
  compiler_cuda_resolves_in_the_channel("13.0", "13.0.88");
  compiler_cuda_resolves_in_the_channel("12.4", "12.4.131");
}

}  // namespace
