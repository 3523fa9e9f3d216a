#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/ci/preflight.hpp"

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
  EXPECT_FALSE(gpuenv::ci::check_nvcc_release("sh: nvcc: not found\n", "11.8", "cuda11.8"));
}

TEST(Preflight, VariantValuesByExactKey) {
  const std::vector<std::string> arguments{"cuda_compiler=cuda-nvcc", "cuda_compiler_version=13.0", "python=3.12"};
  EXPECT_EQ(gpuenv::ci::variant_value(arguments, "cuda_compiler_version"), "13.0");
  EXPECT_EQ(gpuenv::ci::variant_value(arguments, "cuda_compiler"), "cuda-nvcc");
  EXPECT_EQ(gpuenv::ci::variant_value(arguments, "numpy"), "");
}

}  // namespace
