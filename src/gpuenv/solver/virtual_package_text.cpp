// The words for a requirement on a virtual package this machine lacks or
// has too old. For __cuda and __cuda_arch they name what detection found
// (driver release, CUDA version, GPUs, or where it looked and why it
// failed), the driver a requirement needs (NVIDIA's tables in metadata/)
// and the ways out.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "gpuenv/solver/explanation.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version_spec.hpp"
#include "gpuenv/system/cuda_compatibility.hpp"
#include "gpuenv/system/metadata.hpp"

namespace gpuenv::solver {
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

// The oldest CUDA release the requirement accepts and the Linux driver it
// needs (a driver reports the CUDA version it shipped with as __cuda).
std::optional<system::ToolkitDriverRequirement> oldest_acceptable_cuda(const std::string& version_spec) {
  try {
    const auto spec = specs::VersionSpec::parse(version_spec);
    const auto tables = system::CudaCompatibilityTables::load();
    for (auto it = tables.toolkits.rbegin(); it != tables.toolkits.rend(); ++it) {
      if (spec.contains(specs::Version::parse(it->version.str()))) return *it;
    }
  } catch (const specs::SpecError&) {
  } catch (const system::MetadataError&) {
  }
  return std::nullopt;
}

std::string major_of(const std::string& version) { return version.substr(0, version.find('.')); }

std::string searched_places(const system::CudaReport& report) {
  constexpr std::size_t shown = 4;
  std::vector<std::string> places(report.searched.begin(),
                                  report.searched.begin() + std::min(shown, report.searched.size()));
  std::string text = fmt::format("{}", fmt::join(places, ", "));
  if (report.searched.size() > shown) text += fmt::format(" and {} more", report.searched.size() - shown);
  return text;
}

std::string cuda_text(const std::string& requirer, const VirtualDependency& dep, const std::string& dependency,
                      const MachineFacts& machine, bool other_builds_fit) {
  const auto cuda = machine.virtual_version("__cuda");
  if (cuda) {
    std::string who;
    if (machine.cuda_override && !machine.cuda_override->empty()) {
      who = fmt::format("the driver (CUDA {}, from CONDA_OVERRIDE_CUDA)", *cuda);
    } else if (machine.cuda && !machine.cuda->driver_release.empty()) {
      who = fmt::format("this driver ({}, CUDA {})", machine.cuda->driver_release, *cuda);
    } else {
      who = fmt::format("this driver (CUDA {})", *cuda);
    }
    std::string text = fmt::format("{} needs {} but {} is too old", requirer, dependency, who);
    if (const auto needed = oldest_acceptable_cuda(dep.version)) {
      text += fmt::format(": upgrade the driver to >= {} (CUDA {})", needed->linux_min_driver.str(),
                          needed->version.str());
    } else {
      text += ": upgrade the driver";
    }
    if (other_builds_fit) {
      const auto major = major_of(*cuda);
      text += fmt::format(", or ask for a CUDA {} build (cuda-version {}.*)", major, major);
    }
    return text;
  }
  if (machine.cuda_override && machine.cuda_override->empty()) {
    return fmt::format(
        "{} needs {} but CONDA_OVERRIDE_CUDA is set empty, which means no NVIDIA driver: unset it, "
        "or set it to the CUDA version of the machine to solve for",
        requirer, dependency);
  }
  std::string text = fmt::format("{} needs {} but ", requirer, dependency);
  if (machine.cuda && machine.cuda->status == system::DetectionStatus::no_library) {
    text += "no NVIDIA driver found";
    if (!machine.cuda->searched.empty()) text += ": looked in " + searched_places(*machine.cuda);
  } else if (machine.cuda) {
    text += "the NVIDIA driver cannot be used";
    if (!machine.cuda->message.empty()) text += " (" + machine.cuda->message + ")";
  } else {
    text += "this machine has no CUDA driver (no __cuda virtual package)";
  }
  text += "; set CONDA_OVERRIDE_CUDA to solve for another machine";
  if (other_builds_fit) text += ", or ask for a build without CUDA";
  return text;
}

std::string cuda_arch_text(const std::string& requirer, const std::string& dependency,
                           const MachineFacts& machine, bool other_builds_fit) {
  const auto arch = machine.virtual_version("__cuda_arch");
  const std::string way_out = other_builds_fit ? "ask for a build that supports this GPU, or set "
                                                 "CONDA_OVERRIDE_CUDA_ARCH to solve for another machine"
                                               : "set CONDA_OVERRIDE_CUDA_ARCH to solve for another machine";
  if (arch) {
    std::string gpus;
    if (machine.cuda && !(machine.cuda_arch_override && !machine.cuda_arch_override->empty())) {
      for (const auto& device : machine.cuda->devices) {
        if (device.compute_capability.str() == *arch) gpus += (gpus.empty() ? "" : ", ") + device.name;
      }
    }
    const std::string source = machine.cuda_arch_override && !machine.cuda_arch_override->empty()
                                   ? std::string(" (from CONDA_OVERRIDE_CUDA_ARCH)")
                                   : (gpus.empty() ? std::string() : " (" + gpus + ")");
    return fmt::format("{} needs {} but the oldest GPU here has compute capability {}{}: {}", requirer,
                       dependency, *arch, source, way_out);
  }
  if (!machine.virtual_version("__cuda")) {
    return cuda_text(requirer, split_dependency(dependency), dependency, machine, other_builds_fit);
  }
  return fmt::format("{} needs {} but the driver sees no CUDA device: {}", requirer, dependency, way_out);
}

}  // namespace

std::string virtual_requirement_text(const std::string& requirer, const std::string& dependency,
                                     const MachineFacts& machine, bool other_builds_fit) {
  const auto dep = split_dependency(dependency);
  if (dep.name == "__cuda") return cuda_text(requirer, dep, dependency, machine, other_builds_fit);
  if (dep.name == "__cuda_arch") return cuda_arch_text(requirer, dependency, machine, other_builds_fit);
  const std::string alternative = other_builds_fit ? ", or ask for another build of it" : "";
  if (const auto version = machine.virtual_version(dep.name)) {
    const std::string what = dep.name == "__glibc" ? "this system's glibc" : "this machine's " + dep.name;
    const std::string override_name = dep.name.substr(2);
    std::string upper;
    for (const char c : override_name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return fmt::format("{} needs {} but {} is {}: set CONDA_OVERRIDE_{} to solve for another machine{}",
                       requirer, dependency, what, *version, upper, alternative);
  }
  const std::string platform = machine.platform.empty() ? std::string("this platform") : machine.platform;
  return fmt::format("{} needs {}, which {} does not have{}", requirer, dependency, platform, alternative);
}

}  // namespace gpuenv::solver
