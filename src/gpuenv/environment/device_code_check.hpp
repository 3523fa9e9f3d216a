// `gpuenv doctor`'s check: for each file of an environment that carries CUDA
// device code, whether each GPU can run it (cuda_binary::judge), with the
// package that installed it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/cuda_binary/compatibility.hpp"

namespace gpuenv::environment {

struct GpuToCheck {
  std::string label;  // "GPU 0: NVIDIA H200", "--gpu sm_86"
  cuda_binary::GpuArchitecture arch;
};

struct LibraryCheck {
  std::string path;     // relative to the prefix
  std::string package;  // "name-version-build"; empty when no record owns it
  cuda_binary::ListingSummary code;
  std::vector<cuda_binary::Judgement> judgements;  // one per GPU, in order
};

struct DeviceCodeCheck {
  std::vector<LibraryCheck> libraries;  // files with SASS or PTX only, sorted by path
  std::vector<std::string> problems;    // files or records that could not be read
  std::size_t files_examined = 0;

  bool everything_can_run() const;
};

struct DeviceCodeCheckOptions {
  std::size_t threads = 0;  // 0: one per core
};

// The files of the prefix's conda-meta records (or, without records, every
// file under lib/ and bin/) that hold device code, judged for each GPU.
DeviceCodeCheck check_device_code(const std::filesystem::path& prefix, const std::vector<GpuToCheck>& gpus,
                                  const std::optional<cuda_binary::CudaRelease>& driver_cuda,
                                  const cuda_binary::PtxIsaTable& ptx_isa_table,
                                  const DeviceCodeCheckOptions& options = {});

}  // namespace gpuenv::environment
