// The GPU architectures a CUDA variant is built for, and the CUDAARCHS value
// the build script gets. The list comes from the variant key `cuda_archs`
// (CMake's CUDAARCHS syntax: "75;80;90", entries may say "-real" or
// "-virtual"), or, without one, from a default per CUDA toolkit version
// (docs/building-packages.md lists them). The same list drives CUDAARCHS
// and the device-code check (cuda_device_code_check.hpp), so what the script
// is told to build is what the package is checked for.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::build {

struct CudaArchitectureList {
  std::vector<int> numbers;  // sorted, each once: 75, 80, 90, 100
  // For CMake and build scripts: SASS ("-real") for every architecture and
  // SASS + PTX for the highest, unless the variant wrote its own suffixes.
  std::string cudaarchs;
};

// Reads "75;80;90" / "75-real;90" / "sm_80" entries. An error (in words)
// for an empty list or an entry that is no architecture number.
std::expected<CudaArchitectureList, std::string> parse_cuda_archs(std::string_view text);

// What a toolkit of `cuda_version` ("12.9", "13.0") builds for when the
// variant names no list: the architectures it can compile SASS for that
// conda-forge's CUDA builds target, newest with PTX.
CudaArchitectureList default_cuda_archs(std::string_view cuda_version);

}  // namespace gpuenv::build
