// The words for a requirement on a virtual package this machine lacks, or
// has at a version the requirement does not accept. For __cuda and
// __cuda_arch they name what detection found (driver release, CUDA version,
// GPUs, or where it looked and why it failed), the driver a requirement
// needs (NVIDIA's tables in metadata/) and the ways out. The solver asks for
// them through solver::MachineFacts::explain_virtual_requirement, which the
// environment layer fills from a MachineDescription.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/system/cuda_report.hpp"
#include "gpuenv/system/system_survey.hpp"
#include "gpuenv/system/virtual_packages.hpp"

namespace gpuenv::system {

// The machine a solve is for, as far as failures have to describe it.
struct MachineDescription {
  std::string platform;  // the subdir solved for ("linux-64")
  std::vector<VirtualPackage> virtual_packages;
  // CONDA_OVERRIDE_CUDA / CONDA_OVERRIDE_CUDA_ARCH as set (nullopt: unset;
  // "": set empty, which means "no CUDA").
  std::optional<std::string> cuda_override;
  std::optional<std::string> cuda_arch_override;
  // What detection found; absent when it was not run (overrides decided),
  // or when the solve is for another platform.
  std::optional<CudaReport> cuda;

  // The version of a virtual package, if present.
  std::optional<std::string> virtual_version(std::string_view name) const;

  // From gpuenv's one look at the system (survey_system), for that system.
  static MachineDescription of_survey(const SystemSurvey& survey, std::string platform);
};

// How the requirer asks for the virtual package: a dependency it cannot do
// without, or a constraint (`constrains: [__cuda >=11,<12]`) that only
// limits which versions may be present.
enum class VirtualRequirementKind { needs, constrains };

struct VirtualRequirement {
  std::string requirer;    // "cupy 13.3 h1234_0", or "the request"
  std::string dependency;  // "__cuda >=12"
  VirtualRequirementKind kind = VirtualRequirementKind::needs;
  // Another build of the same package fits this machine.
  bool other_builds_fit = false;
};

// One sentence, starting with the requirer ("cupy 13.3 needs __cuda >=12 but
// this driver (470.82, CUDA 11.4) is too old: upgrade the driver to ...").
std::string explain_virtual_requirement(const MachineDescription& machine, const VirtualRequirement& requirement);

}  // namespace gpuenv::system
