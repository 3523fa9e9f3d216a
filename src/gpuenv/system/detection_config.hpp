// Everything CUDA detection depends on, as one value. The program builds it
// from the environment; tests build it directly (fake /proc, fake libcuda,
// a temporary cache directory).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/system/cuda_probe.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::system {

struct DetectionConfig {
  // Where the kernel's files are read from (GPUENV_PROC_ROOT, GPUENV_SYS_ROOT,
  // GPUENV_DEV_ROOT let tests lay out their own).
  std::filesystem::path proc_root = "/proc";
  std::filesystem::path sys_root = "/sys";
  std::filesystem::path dev_root = "/dev";

  // GPUENV_LIBCUDA: this one file and nothing else.
  std::optional<std::string> libcuda_override;
  // GPUENV_LIBNVML: the NVML library for the fallback. Without it, NVML is
  // looked for only when GPUENV_LIBCUDA is unset (naming one libcuda exactly
  // means "detect with that one").
  std::optional<std::string> nvml_override;
  // The dynamic loader's own search first (LD_LIBRARY_PATH, ld.so.cache, ...).
  bool use_loader_search = true;
  // Then the places drivers really live outside the loader's search.
  std::vector<std::filesystem::path> driver_directories = {
      "/usr/lib/wsl/lib",                  // WSL2
      "/usr/lib/aarch64-linux-gnu/tegra",  // Jetson
      "/usr/local/nvidia/lib64",           // containers (NVIDIA device plugins)
  };
  // The loader's cache: ldconfig rewrites it whenever libraries are installed
  // or removed, so its identity is part of the cache key.
  std::filesystem::path loader_cache = "/etc/ld.so.cache";

  // For the whole probe (GPUENV_CUDA_TIMEOUT, in seconds).
  std::chrono::milliseconds time_limit{10'000};

  // Where the detection cache lives; empty = no cache.
  std::filesystem::path cache_dir;
  // Ignore the cache's content (still write the fresh result).
  bool refresh = false;
  // How long an entry is trusted; the key catches most changes sooner, this
  // is the backstop. Failures that may be transient expire sooner.
  std::chrono::seconds cache_ttl{24 * 60 * 60};
  std::chrono::seconds failure_cache_ttl{10 * 60};
  // gpuenv's version: a new gpuenv does not trust an older one's answers.
  std::string program_version;

  // Environment that changes what the driver reports.
  std::optional<std::string> cuda_visible_devices;
  std::optional<std::string> cuda_device_order;
  std::optional<std::string> ld_library_path;

  // The libcuda and NVML candidates this configuration searches, in order.
  ProbePlan probe_plan() const;
};

struct DetectionConfigFromEnvironment {
  DetectionConfig config;
  // Variables that were set but could not be used, in words.
  std::vector<std::string> warnings;
};

// Reads GPUENV_LIBCUDA, GPUENV_LIBNVML, GPUENV_PROC_ROOT, GPUENV_SYS_ROOT,
// GPUENV_DEV_ROOT, GPUENV_CUDA_TIMEOUT, CUDA_VISIBLE_DEVICES,
// CUDA_DEVICE_ORDER and LD_LIBRARY_PATH. `cache_dir` comes from
// util::resolve_user_directories.
DetectionConfigFromEnvironment detection_config_from_environment(const util::EnvLookup& env,
                                                                 const std::filesystem::path& cache_dir);

// Parses a time limit in seconds ("10", "0.5"); nullopt unless positive.
std::optional<std::chrono::milliseconds> parse_time_limit(std::string_view seconds);

}  // namespace gpuenv::system
