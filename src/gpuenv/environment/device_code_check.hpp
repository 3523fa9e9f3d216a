// `gpuenv doctor`'s check: for each file of an environment that carries CUDA
// device code, whether each GPU can run it (cuda_binary::judge), with the
// package that installed it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/cuda_binary/compatibility.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/system/cuda_report.hpp"

namespace gpuenv::environment {

struct GpuToCheck {
  std::string label;  // "GPU 0: NVIDIA H200", "--gpu sm_86"
  cuda_binary::GpuArchitecture arch;
};

// The devices the driver reported, as "GPU 0: NVIDIA H200" (sm_90).
std::vector<GpuToCheck> gpus_of(const system::CudaReport& report);

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
  // Open only files whose names a CUDA binary can have (lib*.so*, *.a,
  // *.cubin, bin/*, ...): the check after an install must cost nothing for
  // packages of Python sources and headers.
  bool names_of_binaries_only = false;
};

// The files of the prefix's conda-meta records (or, without records, every
// file under lib/ and bin/) that hold device code, judged for each GPU.
DeviceCodeCheck check_device_code(const std::filesystem::path& prefix, const std::vector<GpuToCheck>& gpus,
                                  const std::optional<cuda_binary::CudaRelease>& driver_cuda,
                                  const cuda_binary::PtxIsaTable& ptx_isa_table,
                                  const DeviceCodeCheckOptions& options = {});

// The same check over the files of some packages only: those a transaction
// just linked (`gpuenv create/install/update` warn about them).
DeviceCodeCheck check_device_code_of(const std::filesystem::path& prefix, const std::vector<prefix::PrefixRecord>& records,
                                     const std::vector<GpuToCheck>& gpus,
                                     const std::optional<cuda_binary::CudaRelease>& driver_cuda,
                                     const cuda_binary::PtxIsaTable& ptx_isa_table,
                                     const DeviceCodeCheckOptions& options = {});

// One line per kind of problem (no kernel image, PTX too new) over the
// libraries of `check`, e.g. "2 installed libraries cannot run on this
// machine's GPU (sm_90): lib/libfoo.so (sm_80 only), ...; run gpuenv doctor
// -p PREFIX for details". Empty when everything can run (PTX JIT included:
// a slow first start is no reason to warn at every install).
std::vector<std::string> device_code_warnings(const std::filesystem::path& prefix, const DeviceCodeCheck& check,
                                              const std::vector<GpuToCheck>& gpus);

}  // namespace gpuenv::environment
