#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpuenv/ci/job_runners.hpp"
#include "gpuenv/ci/preflight.hpp"
#include "support/temp_directory.hpp"

namespace {

const char* kLddMissing =
    "\tlinux-vdso.so.1 (0x00007ffc)\n"
    "\tlibcrypto.so.3 => /lib/x86_64-linux-gnu/libcrypto.so.3 (0x00007f)\n"
    "\tlibsimdjson.so.14 => not found\n"
    "\tlibfmt.so.9 => not found\n"
    "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)\n";

TEST(Preflight, LibrariesLddCannotFindAreNamed) {
  const std::vector<std::string> expected{"libsimdjson.so.14", "libfmt.so.9"};
  EXPECT_EQ(gpuenv::ci::missing_libraries(kLddMissing), expected);
  const auto checked = gpuenv::ci::check_shared_libraries(kLddMissing, "cuda13.0");
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().message.find("libsimdjson.so.14, libfmt.so.9"), std::string::npos);
  EXPECT_NE(checked.error().message.find("ci-images/cuda13.0/image.yaml"), std::string::npos);
  EXPECT_TRUE(gpuenv::ci::check_shared_libraries("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n", "cpu"));
}

TEST(Preflight, OnlyTheVariantsCudaReleaseBuilds) {
  const char* nvcc13 =
      "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0\n";
  EXPECT_TRUE(gpuenv::ci::check_nvcc_release(nvcc13, "13.0", "cuda13.0"));
  const auto other = gpuenv::ci::check_nvcc_release(nvcc13, "12.9", "cuda13.0");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("needs CUDA 12.9, but nvcc on the build's PATH reports release 13.0"),
            std::string::npos)
      << other.error().message;
  // What to do instead, the channel-provided compiler included.
  EXPECT_NE(other.error().message.find("cuda-nvcc_linux-64 =12.9"), std::string::npos) << other.error().message;
  EXPECT_FALSE(gpuenv::ci::check_nvcc_release("sh: nvcc: not found\n", "11.8", "cuda11.8"));
}

TEST(Preflight, VariantValuesByExactKey) {
  const std::vector<std::string> arguments{"cuda_compiler=cuda-nvcc", "cuda_compiler_version=13.0", "python=3.12"};
  EXPECT_EQ(gpuenv::ci::variant_value(arguments, "cuda_compiler_version"), "13.0");
  EXPECT_EQ(gpuenv::ci::variant_value(arguments, "cuda_compiler"), "cuda-nvcc");
  EXPECT_EQ(gpuenv::ci::variant_value(arguments, "numpy"), "");
}

}  // namespace

namespace {

void write_channel(const std::filesystem::path& root, const std::string& subdir, const std::string& name,
                   const std::string& version) {
  std::filesystem::create_directories(root / subdir);
  const std::string file = name + "-" + version + "-0.conda";
  gpuenv::testing::write_text_file(
      root / subdir / "repodata.json",
      R"({"info": {"subdir": ")" + subdir + R"("}, "packages": {}, "packages.conda": {")" + file +
          R"(": {"name": ")" + name + R"(", "version": ")" + version + R"(", "build": "0", "build_number": 0, "depends": []}}})");
}

// Issue 30: a CUDA 12.4 variant builds in the CUDA 13.0 image when a channel
// gives its build environment nvcc 12.4 (compiler('cuda') installs it).
TEST(Preflight, AChannelWithTheVariantsCudaCompilerStandsInForTheImagesNvcc) {
  gpuenv::testing::TempDirectory dir;
  write_channel(dir / "output", "linux-64", "libcublas", "12.4.5.8");
  write_channel(dir / "compilers", "linux-64", "cuda-nvcc_linux-64", "12.4.131");
  write_channel(dir / "other-arch", "linux-aarch64", "cuda-nvcc_linux-aarch64", "12.4.131");
  const std::vector<std::filesystem::path> channels{dir / "missing", dir / "output", dir / "other-arch",
                                                    dir / "compilers"};
  EXPECT_EQ(gpuenv::ci::channel_with_cuda_compiler(channels, "cuda-nvcc_linux-64", "12.4"), dir / "compilers");
  // =12.4 matches 12.4.x, never 12.40 or 12.3; another platform's package does not count.
  EXPECT_FALSE(gpuenv::ci::channel_with_cuda_compiler(channels, "cuda-nvcc_linux-64", "12.3"));
  write_channel(dir / "twelve-forty", "linux-64", "cuda-nvcc_linux-64", "12.40.1");
  EXPECT_FALSE(gpuenv::ci::channel_with_cuda_compiler({dir / "twelve-forty"}, "cuda-nvcc_linux-64", "12.4"));
  EXPECT_FALSE(gpuenv::ci::channel_with_cuda_compiler({dir / "other-arch"}, "cuda-nvcc_linux-64", "12.4"));
  EXPECT_FALSE(gpuenv::ci::channel_with_cuda_compiler({}, "cuda-nvcc_linux-64", "12.4"));
}

}  // namespace

namespace {

TEST(Preflight, WithoutTheImagesCudaNothingInTheJobsEnvironmentPointsAtIt) {
  gpuenv::ci::ImageDefinition image;
  image.name = "cuda13.0";
  image.c_compiler = "gcc";
  image.cxx_compiler = "g++";
  image.cuda = gpuenv::ci::CudaToolkit{};
  image.cuda->version = "13.0";
  image.cuda->home = "/opt/cuda-13.0";
  const auto has = [](const std::vector<std::string>& environment, const std::string& text) {
    return std::any_of(environment.begin(), environment.end(),
                       [&](const std::string& variable) { return variable.find(text) != std::string::npos; });
  };
  const auto with = gpuenv::ci::detail::chroot_environment(image);
  EXPECT_TRUE(has(with, "PATH=/opt/cuda-13.0/bin:"));
  EXPECT_TRUE(has(with, "CUDA_HOME=/opt/cuda-13.0"));
  EXPECT_TRUE(has(with, "CUDA_PATH=/opt/cuda-13.0"));
  const auto without = gpuenv::ci::detail::chroot_environment(image, false);
  EXPECT_FALSE(has(without, "cuda-13.0"));
  EXPECT_FALSE(has(without, "CUDA_"));
  EXPECT_FALSE(has(without, "NVCC"));
  EXPECT_TRUE(has(without, "PATH=/usr/local/sbin:"));
  EXPECT_TRUE(has(without, "CC=/usr/bin/gcc"));
}

}  // namespace
