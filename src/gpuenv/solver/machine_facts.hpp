// What a failed solve's explanation needs to know about the machine solved
// for: the virtual packages used, whether CUDA's came from the driver or
// from CONDA_OVERRIDE_*, and what CUDA detection found (or why it failed).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuenv/system/cuda_report.hpp"
#include "gpuenv/system/system_survey.hpp"
#include "gpuenv/system/virtual_packages.hpp"

namespace gpuenv::solver {

struct MachineFacts {
  std::string platform;  // the subdir solved for ("linux-64")
  std::vector<system::VirtualPackage> virtual_packages;
  // CONDA_OVERRIDE_CUDA / CONDA_OVERRIDE_CUDA_ARCH as set (nullopt: unset;
  // "": set empty, which means "no CUDA").
  std::optional<std::string> cuda_override;
  std::optional<std::string> cuda_arch_override;
  // What detection found; absent when it was not run (overrides decided).
  std::optional<system::CudaReport> cuda;

  // The version of a virtual package, if present.
  std::optional<std::string> virtual_version(std::string_view name) const;
};

// From `gpuenv`'s one look at the system (system::survey_system).
MachineFacts machine_facts_from(const system::SystemSurvey& survey, std::string platform);

}  // namespace gpuenv::solver
