// `gpuenv doctor`'s CUDA runtime check: the CUDA runtime an environment
// needs (the libcudart/libcublas/... sonames its libraries need or provide,
// and its `cuda-version` package) against the driver's CUDA version
// (`__cuda`), with CUDA's minor-version compatibility rules (metadata/).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/system/cuda_compatibility.hpp"

namespace gpuenv::environment {

struct CudaRuntimeNeed {
  std::string requirement;  // "libcudart.so.13", "cuda-version 13.0"
  system::CudaVersion cuda;
  bool major_only = false;  // a soname tells the major only (cuda.minor is 0)
  std::vector<std::string> needed_by;  // "lib/libfoo.so (foo-1.0-0)", or the cuda-version package
};

enum class CudaRuntimeVerdict {
  runs,                         // the driver's CUDA version is at least the runtime's
  minor_version_compatibility,  // a newer minor of the driver's major: runs, without newer-driver features
  needs_newer_driver,           // the runtime refuses to start
};

std::string_view to_string(CudaRuntimeVerdict verdict);

struct CudaRuntimeJudgement {
  CudaRuntimeNeed need;
  CudaRuntimeVerdict verdict = CudaRuntimeVerdict::needs_newer_driver;
  std::optional<system::DriverRelease> min_driver;  // the oldest Linux driver that runs it, when the tables say
  std::string explanation;                          // one sentence
  std::string fix;                                  // what to do; empty unless it cannot run
};

CudaRuntimeJudgement judge_cuda_runtime(const system::CudaCompatibilityTables& tables, system::CudaVersion driver_cuda,
                                        CudaRuntimeNeed need);

// The CUDA major a CUDA library's soname stands for ("libcudart.so.13" ->
// 13, "libcufft.so.11" -> 12); nullopt for other libraries and for CUDA
// libraries whose soname does not follow the toolkit (cuSPARSE, cuRAND...).
std::optional<int> cuda_major_of_soname(std::string_view soname);

struct CudaRuntimeCheck {
  std::optional<system::CudaVersion> driver_cuda;  // nullopt: unknown, nothing judged
  std::vector<CudaRuntimeJudgement> judgements;    // cuda-version first, then sonames by name
  std::vector<std::string> problems;               // files or records that could not be read

  bool everything_can_run() const;
};

CudaRuntimeCheck check_cuda_runtime(const std::filesystem::path& prefix,
                                    const std::optional<system::CudaVersion>& driver_cuda,
                                    const system::CudaCompatibilityTables& tables);

}  // namespace gpuenv::environment
