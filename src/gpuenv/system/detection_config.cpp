#include "gpuenv/system/detection_config.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace gpuenv::system {

ProbePlan DetectionConfig::probe_plan() const {
  ProbePlan plan;
  plan.time_limit = time_limit;
  if (libcuda_override) {
    plan.libcuda_candidates.push_back(*libcuda_override);
  } else {
    if (use_loader_search) {
      plan.libcuda_candidates.emplace_back("libcuda.so.1");
      plan.libcuda_candidates.emplace_back("libcuda.so");
    }
    for (const auto& directory : driver_directories) {
      plan.libcuda_candidates.push_back((directory / "libcuda.so.1").string());
      plan.libcuda_candidates.push_back((directory / "libcuda.so").string());
    }
  }
  if (nvml_override) {
    plan.nvml_candidates.push_back(*nvml_override);
  } else if (!libcuda_override) {
    if (use_loader_search) plan.nvml_candidates.emplace_back("libnvidia-ml.so.1");
    for (const auto& directory : driver_directories) {
      plan.nvml_candidates.push_back((directory / "libnvidia-ml.so.1").string());
    }
  }
  return plan;
}

std::optional<std::chrono::milliseconds> parse_time_limit(std::string_view seconds) {
  const std::string text(seconds);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) || value <= 0 ||
      value > 24 * 60 * 60) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(value * 1000)));
}

DetectionConfigFromEnvironment detection_config_from_environment(const util::EnvLookup& env,
                                                                 const std::filesystem::path& cache_dir) {
  DetectionConfigFromEnvironment result;
  auto& config = result.config;
  const auto non_empty = [&env](std::string_view name) -> std::optional<std::string> {
    auto value = env(name);
    if (value && value->empty()) return std::nullopt;
    return value;
  };
  config.libcuda_override = non_empty("GPUENV_LIBCUDA");
  config.nvml_override = non_empty("GPUENV_LIBNVML");
  if (auto root = non_empty("GPUENV_PROC_ROOT")) config.proc_root = *root;
  if (auto root = non_empty("GPUENV_SYS_ROOT")) config.sys_root = *root;
  if (auto root = non_empty("GPUENV_DEV_ROOT")) config.dev_root = *root;
  if (auto timeout = non_empty("GPUENV_CUDA_TIMEOUT")) {
    if (auto limit = parse_time_limit(*timeout)) {
      config.time_limit = *limit;
    } else {
      result.warnings.push_back(fmt::format(
          "GPUENV_CUDA_TIMEOUT='{}' is not a positive number of seconds; using {} s", *timeout,
          config.time_limit.count() / 1000.0));
    }
  }
  config.cache_dir = cache_dir;
  config.cuda_visible_devices = env("CUDA_VISIBLE_DEVICES");
  config.cuda_device_order = env("CUDA_DEVICE_ORDER");
  config.ld_library_path = env("LD_LIBRARY_PATH");
  return result;
}

}  // namespace gpuenv::system
