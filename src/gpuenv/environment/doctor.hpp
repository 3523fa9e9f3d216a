// `gpuenv doctor` as a library call (the builder's post-build check and the
// CI runner use it too): which GPUs and driver to judge against, then the
// device-code check (device_code_check.hpp) and the CUDA runtime check
// (cuda_runtime_check.hpp) over one environment.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/cuda_binary/compatibility.hpp"
#include "gpuenv/environment/cuda_runtime_check.hpp"
#include "gpuenv/environment/error.hpp"
#include "gpuenv/environment/device_code_check.hpp"
#include "gpuenv/environment/elf_load_check.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::environment {

struct GpusToJudge {
  std::vector<GpuToCheck> gpus;
  std::optional<cuda_binary::CudaRelease> driver_cuda;  // __cuda; nullopt: unknown
};

// `requested` (--gpu: "sm_86", "8.6", "86"), else the detected devices
// (CUDA_VISIBLE_DEVICES applies), else __cuda_arch; the driver is __cuda, so
// CONDA_OVERRIDE_CUDA applies. Fails for a bad --gpu; no GPU known at all
// gives an empty list (the device code is then not judged).
std::expected<GpusToJudge, Error> gpus_to_judge(const std::vector<std::string>& requested,
                                                      const util::EnvLookup& env);

struct DoctorReport {
  GpusToJudge machine;
  DeviceCodeCheck device_code;
  CudaRuntimeCheck runtime;
  ElfLoadCheck elf_load;  // every ELF file against this machine's glibc and libraries
  bool everything_can_run() const {
    return device_code.everything_can_run() && runtime.everything_can_run() && elf_load.everything_can_load();
  }
};

std::expected<DoctorReport, Error> check_environment_for_gpus(const std::filesystem::path& prefix,
                                                                    const std::vector<std::string>& requested_gpus,
                                                                    const util::EnvLookup& env);

// `gpuenv doctor --json` (docs/json-output.md): success (everything can run
// and every file could be read), the prefix, the driver's CUDA, the GPUs,
// each library's code and verdict per GPU, the CUDA runtime judgements and
// the ELF load check.
std::string doctor_report_json(const std::filesystem::path& prefix, const DoctorReport& report);

// "12.4" (a __cuda version) as a CUDA release; nullopt when it is none.
std::optional<cuda_binary::CudaRelease> cuda_release_of(std::string_view version);

// metadata/ptx_isa_versions.tsv; an error is a build problem of gpuenv.
std::expected<cuda_binary::PtxIsaTable, std::string> load_ptx_isa_table();

}  // namespace gpuenv::environment
