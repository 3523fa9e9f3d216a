#include "gpuenv/system/virtual_packages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpuenv::system {
namespace {

// What is used when the version cannot be measured (target is not native).
constexpr std::string_view glibc_fallback = "2.17";

bool is_valid_build_string(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+';
  });
}

// CEP 30 Appendix A: the build string when no CPU detection applies.
std::string naive_archspec(const specs::Platform& target) {
  const auto subdir = target.str();
  if (subdir == "zos-z") return "z";
  const auto dash = subdir.find('-');
  const auto arch = subdir.substr(dash + 1);
  if (arch == "64") return "x86_64";
  if (arch == "32") return "x86";
  if (arch == "arm64") return "aarch64";
  return std::string(arch);
}

class Builder {
 public:
  explicit Builder(VirtualPackageSet& set) : set_(set) {}
  void add(std::string name, std::string version, std::string build = "0") {
    set_.packages.push_back({std::move(name), std::move(version), std::move(build)});
  }
  void warn(std::string text) { set_.warnings.push_back(std::move(text)); }

 private:
  VirtualPackageSet& set_;
};

void add_cuda(const VirtualPackageInputs& inputs, const VirtualPackageOverrides& overrides, Builder& out) {
  std::optional<std::string> cuda = inputs.cuda.driver_cuda_version;
  if (overrides.cuda) {
    if (overrides.cuda->empty()) {
      cuda.reset();
    } else if (is_valid_version_string(*overrides.cuda)) {
      cuda = *overrides.cuda;
    } else {
      out.warn(fmt::format("CONDA_OVERRIDE_CUDA='{}' is not a version; ignored", *overrides.cuda));
    }
  }
  if (!cuda) {
    // CEP 46: no __cuda_arch without __cuda, whatever its override says.
    if (overrides.cuda_arch && !overrides.cuda_arch->empty()) {
      out.warn(fmt::format("CONDA_OVERRIDE_CUDA_ARCH='{}' is ignored: __cuda is absent", *overrides.cuda_arch));
    }
    return;
  }
  out.add("__cuda", *cuda);

  std::optional<std::string> arch;
  if (inputs.cuda.lowest_compute_capability) arch = inputs.cuda.lowest_compute_capability->str();
  if (overrides.cuda_arch) {
    if (overrides.cuda_arch->empty()) {
      arch.reset();
    } else if (auto capability = ComputeCapability::parse(*overrides.cuda_arch)) {
      arch = capability->str();
    } else {
      out.warn(fmt::format("CONDA_OVERRIDE_CUDA_ARCH='{}' is not a compute capability (like 8.6); ignored",
                           *overrides.cuda_arch));
    }
  }
  if (arch) out.add("__cuda_arch", *arch);
}

void add_linux_family(const VirtualPackageInputs& inputs, const VirtualPackageOverrides& overrides,
                      Builder& out) {
  const bool native = inputs.target_is_native;
  // __glibc: conda and rattler treat an empty override as "absent".
  std::optional<std::string> glibc;
  if (native) {
    if (inputs.host.glibc_version) glibc = major_minor(*inputs.host.glibc_version);
  } else {
    glibc = std::string(glibc_fallback);
  }
  if (overrides.glibc) {
    if (overrides.glibc->empty()) glibc.reset();
    else if (is_valid_version_string(*overrides.glibc)) glibc = *overrides.glibc;
    else out.warn(fmt::format("CONDA_OVERRIDE_GLIBC='{}' is not a version; ignored", *overrides.glibc));
  }
  if (glibc) out.add("__glibc", *glibc);

  // __linux: CEP 30 says it MUST be present for linux-* targets, so an empty
  // or malformed override cannot remove it.
  std::string linux_version = "0";
  if (native) {
    if (auto version = linux_version_from_release(inputs.host.kernel_release)) linux_version = *version;
  }
  if (overrides.linux_version) {
    if (auto version = linux_version_from_release(*overrides.linux_version)) {
      linux_version = *version;
    } else {
      out.warn(fmt::format("CONDA_OVERRIDE_LINUX='{}' does not start with a kernel version like 5.15.0; "
                           "ignored (__linux stays present on Linux, CEP 30)",
                           *overrides.linux_version));
    }
  }
  out.add("__linux", linux_version);
}

void add_os_version(std::string name, const std::optional<std::string>& override_value,
                    std::string_view variable, Builder& out) {
  // gpuenv does not measure macOS or Windows versions (it runs on Linux), so
  // the CEP's fallback applies unless the override says otherwise.
  std::optional<std::string> version = std::string("0");
  if (override_value) {
    if (override_value->empty()) version.reset();
    else if (is_valid_version_string(*override_value)) version = *override_value;
    else out.warn(fmt::format("{}='{}' is not a version; ignored", variable, *override_value));
  }
  if (version) out.add(std::move(name), *version);
}

void add_archspec(const VirtualPackageInputs& inputs, const VirtualPackageOverrides& overrides, Builder& out) {
  if (inputs.target.str() == "noarch") return;
  if (overrides.archspec) {
    if (is_valid_build_string(*overrides.archspec)) {
      out.add("__archspec", "1", *overrides.archspec);
      return;
    }
    out.warn(fmt::format("CONDA_OVERRIDE_ARCHSPEC='{}' is not a build string; ignored "
                         "(__archspec is always present, CEP 30)",
                         *overrides.archspec));
  }
  if (inputs.target_is_native && !inputs.host.microarchitecture.empty()) {
    out.add("__archspec", "1", inputs.host.microarchitecture);
  } else {
    out.add("__archspec", "0", naive_archspec(inputs.target));
  }
}

}  // namespace

VirtualPackageOverrides VirtualPackageOverrides::from_environment(const util::EnvLookup& env) {
  VirtualPackageOverrides overrides;
  overrides.archspec = env("CONDA_OVERRIDE_ARCHSPEC");
  overrides.cuda = env("CONDA_OVERRIDE_CUDA");
  overrides.cuda_arch = env("CONDA_OVERRIDE_CUDA_ARCH");
  overrides.glibc = env("CONDA_OVERRIDE_GLIBC");
  overrides.linux_version = env("CONDA_OVERRIDE_LINUX");
  overrides.osx = env("CONDA_OVERRIDE_OSX");
  overrides.win = env("CONDA_OVERRIDE_WIN");
  return overrides;
}

CudaFacts cuda_facts(const CudaReport& report) {
  CudaFacts facts;
  if (!driver_usable(report)) return facts;
  facts.driver_cuda_version = format_cuda_version(*report.driver_cuda_version);
  facts.lowest_compute_capability = lowest_compute_capability(report);
  return facts;
}

bool is_valid_version_string(std::string_view text) {
  if (text.empty() || !std::isalnum(static_cast<unsigned char>(text.front()))) return false;
  char previous = 0;
  for (char c : text) {
    const bool separator = c == '.' || c == '_' || c == '+' || c == '!' || c == '-';
    if (!std::isalnum(static_cast<unsigned char>(c)) && !separator) return false;
    if (separator && previous != 0 && !std::isalnum(static_cast<unsigned char>(previous))) return false;
    previous = c;
  }
  return std::isalnum(static_cast<unsigned char>(previous)) != 0;
}

bool cuda_detection_needed(const VirtualPackageOverrides& overrides) {
  if (overrides.cuda && overrides.cuda->empty()) return false;  // __cuda (and so __cuda_arch) absent
  if (overrides.cuda && is_valid_version_string(*overrides.cuda) && overrides.cuda_arch) {
    return !overrides.cuda_arch->empty() && !ComputeCapability::parse(*overrides.cuda_arch);
  }
  return true;
}

VirtualPackageSet compute_virtual_packages(const VirtualPackageInputs& inputs,
                                           const VirtualPackageOverrides& overrides) {
  VirtualPackageSet set;
  Builder out(set);
  const auto& target = inputs.target;
  add_archspec(inputs, overrides, out);
  add_cuda(inputs, overrides, out);
  if (target.is_linux()) add_linux_family(inputs, overrides, out);
  if (target.os() == "osx") add_os_version("__osx", overrides.osx, "CONDA_OVERRIDE_OSX", out);
  if (target.os() == "win") add_os_version("__win", overrides.win, "CONDA_OVERRIDE_WIN", out);
  if (target.is_unix() || target.os() == "emscripten") out.add("__unix", "0");
  std::sort(set.packages.begin(), set.packages.end(),
            [](const VirtualPackage& a, const VirtualPackage& b) { return a.name < b.name; });
  return set;
}

}  // namespace gpuenv::system
