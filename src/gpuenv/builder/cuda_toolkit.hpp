// compiler('cuda') without the channels' compiler package: the machine's
// (or CI image's) CUDA toolkit OF THE VARIANT'S VERSION. A CUDA 12.9 variant
// must never build with CUDA 13's nvcc, so a toolkit of another version is
// refused, naming what was found and where. Places searched, in order:
// $CUDA_HOME, /usr/local/cuda-<major.minor>, /usr/local/cuda, then every
// directory on PATH holding nvcc. A toolkit's version is its version.json
// ({"cuda": {"version": "13.0.88"}}) when it has one, else what
// `nvcc --version` prints ("release 13.0").
// The toolkit chosen is also shown to the solver as the virtual package
// __cuda_compiler=<major.minor>=0 and the build environment requires
// `__cuda_compiler <variant version>.*`, so the solve itself records (and
// would refuse) the toolkit the build uses.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/cuda_architectures.hpp"
#include "gpuenv/specs/virtual_package.hpp"

namespace gpuenv::build {

struct CudaToolkit {
  std::filesystem::path root;  // CUDA_HOME
  std::filesystem::path nvcc;
  std::string version;  // major.minor: "13.0"
};

// "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0".
std::optional<std::string> nvcc_release(std::string_view version_output);
// version.json's {"cuda": {"version": "13.0.88"}} -> "13.0".
std::optional<std::string> version_json_release(std::string_view json_text);

// Whether a toolkit of `found` ("12.9") serves a variant asking for
// `wanted` ("12.9", or "12" for any 12.x; empty or "None": any).
bool cuda_version_matches(std::string_view wanted, std::string_view found);

struct CudaToolkitSearch {
  std::optional<std::string> cuda_home;  // $CUDA_HOME
  std::string path;                      // $PATH
  std::filesystem::path install_root = "/usr/local";
};

// Every toolkit at the places searched, in that order, each once (by its
// real path), with its version; toolkits whose version cannot be read are
// left out.
std::vector<CudaToolkit> machine_cuda_toolkits(std::string_view wanted, const CudaToolkitSearch& search);

// The first toolkit of the `wanted` version. The error names the toolkits
// found and says what to do.
std::expected<CudaToolkit, BuildError> find_machine_cuda_toolkit(std::string_view wanted,
                                                                 const CudaToolkitSearch& search);

// __cuda_compiler=<version>=0, and the spec the build environment adds.
specs::VirtualPackage cuda_compiler_virtual_package(const CudaToolkit& toolkit);
std::string cuda_compiler_requirement(std::string_view wanted);

// What a CUDA build script gets besides CC/CXX: CUDAARCHS, and
// cuda_compiler_version when the variant has one; with a machine toolkit
// also NVCC, CUDACXX (CMake's), CUDA_HOME and CUDA_PATH. (A compiler
// package's activation sets the latter itself.)
std::map<std::string, std::string> cuda_script_variables(const CudaArchitectureList& architectures,
                                                         std::string_view variant_cuda_version,
                                                         const CudaToolkit* machine_toolkit);

}  // namespace gpuenv::build
