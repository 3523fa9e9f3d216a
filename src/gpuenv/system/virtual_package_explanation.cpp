#include "gpuenv/system/virtual_package_explanation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version_spec.hpp"
#include "gpuenv/system/cuda_compatibility.hpp"
#include "gpuenv/system/metadata.hpp"

namespace gpuenv::system {
namespace {

struct VirtualDependency {
  std::string name;
  std::string version;  // the version part ("" when any)
};

VirtualDependency split_dependency(const std::string& dependency) {
  const auto space = dependency.find(' ');
  if (space == std::string::npos) return {dependency, ""};
  std::string version = dependency.substr(space + 1);
  // A build part (`__cuda >=12 0`) says nothing useful here.
  if (const auto build = version.find(' '); build != std::string::npos) version.resize(build);
  return {dependency.substr(0, space), version};
}

// Where the machine's CUDA version stands against what a requirement
// accepts, judged over the CUDA releases NVIDIA has made: a driver reports
// the CUDA version it shipped with as __cuda.
struct CudaVerdict {
  enum class Direction { unknown, too_old, too_new } direction = Direction::unknown;
  // For too_old: the oldest accepted release newer than the driver, and the
  // Linux driver it needs.
  std::optional<ToolkitDriverRequirement> needed;
};

CudaVerdict judge_cuda(const std::string& version_spec, const std::string& machine_cuda) {
  CudaVerdict verdict;
  try {
    const auto spec = specs::VersionSpec::parse(version_spec.empty() ? std::string("*") : version_spec);
    const auto have = specs::Version::parse(machine_cuda);
    const auto tables = CudaCompatibilityTables::load();
    bool accepts_older = false;
    for (auto it = tables.toolkits.rbegin(); it != tables.toolkits.rend(); ++it) {  // oldest first
      const auto& toolkit = *it;
      const auto release = specs::Version::parse(toolkit.version.str());
      if (!spec.contains(release)) continue;
      if (have < release) {
        if (!verdict.needed) verdict.needed = toolkit;
      } else {
        accepts_older = true;
      }
    }
    if (verdict.needed) verdict.direction = CudaVerdict::Direction::too_old;
    else if (accepts_older) verdict.direction = CudaVerdict::Direction::too_new;
  } catch (const specs::SpecError&) {
  } catch (const MetadataError&) {
  }
  return verdict;
}

std::string major_of(const std::string& version) { return version.substr(0, version.find('.')); }

std::string searched_places(const CudaReport& report) {
  constexpr std::size_t shown = 4;
  std::vector<std::string> places(report.searched.begin(),
                                  report.searched.begin() + std::min(shown, report.searched.size()));
  std::string text = fmt::format("{}", fmt::join(places, ", "));
  if (report.searched.size() > shown) text += fmt::format(" and {} more", report.searched.size() - shown);
  return text;
}

const char* verb(const VirtualRequirement& requirement) {
  return requirement.kind == VirtualRequirementKind::constrains ? "constrains" : "needs";
}

std::string driver_words(const MachineDescription& machine, const std::string& cuda) {
  if (machine.cuda_override && !machine.cuda_override->empty()) {
    return fmt::format("the driver (CUDA {}, from CONDA_OVERRIDE_CUDA)", cuda);
  }
  if (machine.cuda && !machine.cuda->driver_release.empty()) {
    return fmt::format("this driver ({}, CUDA {})", machine.cuda->driver_release, cuda);
  }
  return fmt::format("this driver (CUDA {})", cuda);
}

std::string cuda_text(const VirtualRequirement& requirement, const VirtualDependency& dep,
                      const MachineDescription& machine) {
  const auto& requirer = requirement.requirer;
  const auto& dependency = requirement.dependency;
  if (const auto cuda = machine.virtual_version("__cuda")) {
    const auto verdict = judge_cuda(dep.version, *cuda);
    const std::string major = major_of(*cuda);
    const std::string who = driver_words(machine, *cuda);
    if (verdict.direction == CudaVerdict::Direction::too_new) {
      // An upper bound: upgrading cannot help, and a newer driver is not
      // something to undo; what helps is a build made for this CUDA.
      std::string text = fmt::format("{} {} {} but {} is newer than that allows: ", requirer, verb(requirement),
                                     dependency, who);
      if (requirement.other_builds_fit) {
        text += fmt::format("ask for a CUDA {} build (cuda-version {}.*), or ", major, major);
      }
      return text + "set CONDA_OVERRIDE_CUDA to solve for another machine";
    }
    std::string text = fmt::format("{} {} {} but {} is too old", requirer, verb(requirement), dependency, who);
    if (verdict.needed) {
      text += fmt::format(": upgrade the driver to >= {} (CUDA {})", verdict.needed->linux_min_driver.str(),
                          verdict.needed->version.str());
    } else {
      text += ": upgrade the driver";
    }
    if (requirement.other_builds_fit) {
      text += fmt::format(", or ask for a CUDA {} build (cuda-version {}.*)", major, major);
    }
    return text;
  }
  if (machine.cuda_override && machine.cuda_override->empty()) {
    return fmt::format(
        "{} {} {} but CONDA_OVERRIDE_CUDA is set empty, which means no NVIDIA driver: unset it, "
        "or set it to the CUDA version of the machine to solve for",
        requirer, verb(requirement), dependency);
  }
  std::string text = fmt::format("{} {} {} but ", requirer, verb(requirement), dependency);
  if (machine.cuda && machine.cuda->status == DetectionStatus::no_library) {
    text += "no NVIDIA driver found";
    if (!machine.cuda->searched.empty()) text += ": looked in " + searched_places(*machine.cuda);
  } else if (machine.cuda) {
    text += "the NVIDIA driver cannot be used";
    if (!machine.cuda->message.empty()) text += " (" + machine.cuda->message + ")";
  } else {
    text += "this machine has no CUDA driver (no __cuda virtual package)";
  }
  text += "; set CONDA_OVERRIDE_CUDA to solve for another machine";
  if (requirement.other_builds_fit) text += ", or ask for a build without CUDA";
  return text;
}

std::string cuda_arch_text(const VirtualRequirement& requirement, const MachineDescription& machine) {
  const auto arch = machine.virtual_version("__cuda_arch");
  const std::string way_out = requirement.other_builds_fit
                                  ? "ask for a build that supports this GPU, or set "
                                    "CONDA_OVERRIDE_CUDA_ARCH to solve for another machine"
                                  : "set CONDA_OVERRIDE_CUDA_ARCH to solve for another machine";
  const bool arch_overridden = machine.cuda_arch_override && !machine.cuda_arch_override->empty();
  if (arch) {
    std::string gpus;
    if (machine.cuda && !arch_overridden) {
      for (const auto& device : machine.cuda->devices) {
        if (device.compute_capability.str() == *arch) gpus += (gpus.empty() ? "" : ", ") + device.name;
      }
    }
    const std::string source = arch_overridden ? std::string(" (from CONDA_OVERRIDE_CUDA_ARCH)")
                                               : (gpus.empty() ? std::string() : " (" + gpus + ")");
    return fmt::format("{} {} {} but the oldest GPU here has compute capability {}{}: {}", requirement.requirer,
                       verb(requirement), requirement.dependency, *arch, source, way_out);
  }
  if (!machine.virtual_version("__cuda")) {
    return cuda_text(requirement, split_dependency(requirement.dependency), machine);
  }
  return fmt::format("{} {} {} but the driver sees no CUDA device: {}", requirement.requirer, verb(requirement),
                     requirement.dependency, way_out);
}

}  // namespace

std::optional<std::string> MachineDescription::virtual_version(std::string_view name) const {
  for (const auto& package : virtual_packages) {
    if (package.name == name) return package.version;
  }
  return std::nullopt;
}

MachineDescription MachineDescription::of_survey(const SystemSurvey& survey, std::string platform) {
  MachineDescription machine;
  machine.platform = std::move(platform);
  machine.virtual_packages = survey.virtual_packages.packages;
  machine.cuda_override = survey.overrides.cuda;
  machine.cuda_arch_override = survey.overrides.cuda_arch;
  if (survey.cuda) machine.cuda = survey.cuda->report;
  return machine;
}

std::string explain_virtual_requirement(const MachineDescription& machine, const VirtualRequirement& requirement) {
  const auto dep = split_dependency(requirement.dependency);
  if (dep.name == "__cuda") return cuda_text(requirement, dep, machine);
  if (dep.name == "__cuda_arch") return cuda_arch_text(requirement, machine);
  const std::string alternative = requirement.other_builds_fit ? ", or ask for another build of it" : "";
  if (const auto version = machine.virtual_version(dep.name)) {
    const std::string what = dep.name == "__glibc" ? "this system's glibc" : "this machine's " + dep.name;
    const std::string override_name = dep.name.substr(2);
    std::string upper;
    for (const char c : override_name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return fmt::format("{} {} {} but {} is {}: set CONDA_OVERRIDE_{} to solve for another machine{}",
                       requirement.requirer, verb(requirement), requirement.dependency, what, *version, upper,
                       alternative);
  }
  const std::string platform = machine.platform.empty() ? std::string("this platform") : machine.platform;
  return fmt::format("{} {} {}, which {} does not have{}", requirement.requirer, verb(requirement),
                     requirement.dependency, platform, alternative);
}

}  // namespace gpuenv::system
