// The virtual packages of CEP 30 and CEP 46 (__archspec, __cuda,
// __cuda_arch, __glibc, __linux, __osx, __unix, __win) from detected facts
// and the CONDA_OVERRIDE_* variables. A pure function of its inputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuenv/specs/platform.hpp"
#include "gpuenv/specs/virtual_package.hpp"
#include "gpuenv/system/cuda_report.hpp"
#include "gpuenv/system/host_facts.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::system {

// The value type lives in specs so the solver can take it without system.
using specs::VirtualPackage;

// The CONDA_OVERRIDE_* variables as set: nullopt = unset, "" = set empty.
struct VirtualPackageOverrides {
  std::optional<std::string> archspec;
  std::optional<std::string> cuda;
  std::optional<std::string> cuda_arch;
  std::optional<std::string> glibc;
  std::optional<std::string> linux_version;  // CONDA_OVERRIDE_LINUX ("linux" is a macro in GNU modes)
  std::optional<std::string> osx;
  std::optional<std::string> win;

  static VirtualPackageOverrides from_environment(const util::EnvLookup& env);
};

// What CUDA detection contributes.
struct CudaFacts {
  std::optional<std::string> driver_cuda_version;            // "13.0"; nullopt without a usable driver
  std::optional<ComputeCapability> lowest_compute_capability;  // nullopt without devices
};

CudaFacts cuda_facts(const CudaReport& report);

struct VirtualPackageInputs {
  specs::Platform target = specs::Platform::current();
  // Whether `target` is the platform gpuenv runs on (host facts apply).
  bool target_is_native = true;
  HostFacts host;
  CudaFacts cuda;
};

struct VirtualPackageSet {
  std::vector<VirtualPackage> packages;  // sorted by name
  // Overrides that were set but not used, and fallbacks taken, in words.
  std::vector<std::string> warnings;
};

VirtualPackageSet compute_virtual_packages(const VirtualPackageInputs& inputs,
                                           const VirtualPackageOverrides& overrides);

// False when the overrides alone decide __cuda and __cuda_arch, so the
// driver need not be asked at all (as conda never calls a driver it was told
// about).
bool cuda_detection_needed(const VirtualPackageOverrides& overrides);

// Loosely, CEP 33's alphabet: starts with a letter or digit, then letters,
// digits and . _ + ! - with no empty segment. Overrides that fail are ignored.
bool is_valid_version_string(std::string_view text);

}  // namespace gpuenv::system
