// `gpuenv build` of a recipe needing compiler('cxx') and compiler('cuda')
// from channels that provide the CUDA compiler package (our own cuda-nvcc,
// recipes/cuda-nvcc) but not conda-forge's gxx_linux-64: the build keeps
// the channel's cuda-nvcc_linux-64 (its activation sets NVCC) and takes
// only the C++ compiler from the machine. Needs no nvcc on the machine: the
// channel's "nvcc" is a script.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "solve_cli_fixture.hpp"
#include "support/package_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::read_file;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::write_text_file;

TEST(BuildChannelCudaCompiler, TheChannelsNvccIsKeptWhenOnlyTheCxxCompilerComesFromTheMachine) {
  gpuenv::testing::SolveCliMachine machine;
  const auto channel_dir = machine / "channel";
  gpuenv::testing::ChannelBuilder channel{channel_dir, "file://" + channel_dir.string()};
  write_text_file(channel_dir / "linux-64/repodata.json",
                  R"({"info": {"subdir": "linux-64"}, "packages": {}, "packages.conda": {}})");
  channel.add(gpuenv::testing::PackageBuilder("cuda-nvcc_linux-64", "13.0.88")
                  .noarch_generic()
                  .file("bin/channel-nvcc", "#!/bin/sh\necho \"the channel's nvcc\"\n", 0755)
                  .file("etc/conda/activate.d/~cuda-nvcc_activate.sh",
                        "export NVCC=\"$BUILD_PREFIX/bin/channel-nvcc\"\n"));
  write_text_file(machine / "recipe/recipe.yaml", R"(package:
  name: uses-both
  version: "1.0"
build:
  script:
    - mkdir -p "$PREFIX/share"
    - '"$NVCC" | tee "$PREFIX/share/compilers.txt"'
    - '"$CXX" --version | head -n 1 | tee -a "$PREFIX/share/compilers.txt"'
requirements:
  build:
    - ${{ compiler('cxx') }}
    - ${{ compiler('cuda') }}
extra:
  gpuenv:
    cuda_check: false
)");
  const auto output = machine / "output";
  const auto result = run_gpuenv({"build", (machine / "recipe").string(), "--output-dir", output.string(), "-c",
                                  "file://" + channel_dir.string(), "--override-channels", "--variant",
                                  "cuda_compiler_version=13.0", "--variant", "cuda_compiler=cuda-nvcc", "--test",
                                  "skip"},
                                 machine.env({"CUDA_HOME=", "PATH=/usr/bin:/bin"}));
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_NE(result.err.find("compiler: the channels do not provide gxx_linux-64"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("the channels do not provide cuda-nvcc_linux-64"), std::string::npos) << result.err;
  std::string log;
  for (const auto& entry : fs::directory_iterator(output / "bld")) {
    if (entry.path().extension() == ".log") log = read_file(entry.path());
  }
  EXPECT_NE(log.find("  cuda-nvcc_linux-64 13.0.88 0"), std::string::npos) << log;
  EXPECT_NE(log.find("the channel's nvcc"), std::string::npos) << log;
}

}  // namespace
