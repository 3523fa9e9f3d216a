// What a variant that builds with compiler('cuda') adds to the pipeline:
// the variant's CUDA version and architecture list (cuda_architectures.hpp),
// the machine toolkit when the channels have no cuda-nvcc
// (cuda_toolkit.hpp), the script's CUDA variables, and the device-code
// check of the package's files (cuda_device_code_check.hpp). build_variant
// calls these; the logic lives here.
#pragma once

#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/compilers.hpp"
#include "gpuenv/builder/cuda_architectures.hpp"
#include "gpuenv/builder/cuda_toolkit.hpp"
#include "gpuenv/builder/new_prefix_files.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

struct CudaBuild {
  std::string cuda_version;  // the variant's cuda_compiler_version; empty when it has none
  // From the variant's cuda_archs; empty until resolve_cuda_architectures
  // when the variant has none.
  CudaArchitectureList architectures;
  std::optional<CudaToolkit> machine_toolkit;  // set when the channels have no CUDA compiler
};

// nullopt when the build requirements hold no CUDA compiler. Fails on a
// cuda_archs value that is no architecture list.
std::expected<std::optional<CudaBuild>, BuildError> cuda_build_for(const BuildRequirementSplit& split,
                                                                   const recipe::RenderedVariant& variant);

// $CUDA_HOME and $PATH of this process, /usr/local.
CudaToolkitSearch process_cuda_toolkit_search();

// The machine toolkit of the variant's version into `cuda`, and what the
// build environment's solve needs to see it: the __cuda_compiler virtual
// package (into `virtual_packages`) and the spec (into `specs`).
std::expected<void, BuildError> use_machine_cuda_toolkit(CudaBuild& cuda, const CudaToolkitSearch& search,
                                                         std::vector<specs::VirtualPackage>& virtual_packages,
                                                         std::vector<std::string>& specs);

// "/usr/local/cuda/bin/nvcc (CUDA 13.0, __cuda_compiler to the solver)", for the log.
std::string machine_toolkit_description(const CudaBuild& cuda);

// CUDAARCHS, cuda_compiler_version and, with a machine toolkit, NVCC,
// CUDACXX, CUDA_HOME, CUDA_PATH; the default architectures of the CUDA
// version filled in when the variant named none.
std::map<std::string, std::string> cuda_build_variables(CudaBuild& cuda);

// The device-code check of the package's files, unless `extra` opts out;
// each step to `log`. Fails naming each file and the architectures it lacks;
// else says what it found ("passed: 2 files with device code for 75;80;90",
// "skipped (...)") for the build's result (gpuenv build --json, gpuenv ci run).
std::expected<std::string, BuildError> check_cuda_package(const CudaBuild& cuda, const std::vector<NewPrefixFile>& files,
                                                   const recipe::Value& extra,
                                                   const std::function<void(const std::string&)>& log);

}  // namespace gpuenv::build
