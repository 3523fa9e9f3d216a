// The on-disk cache of CUDA detection, so a warm gpuenv never touches the
// driver (which can take seconds to wake an idle GPU).
//
// An entry is keyed on everything that can make it stale without gpuenv
// noticing, as rattler (pixi's engine) keys its own cache:
// - the boot session (/proc/sys/kernel/random/boot_id, else /proc/stat btime): a reboot re-enumerates
//   hardware and may load another driver;
// - the driver: the nvidia kernel module's version, /proc/driver/nvidia/version,
//   and the identity (real path, size, mtime) of the library that answered;
// - where the library would be found: the loader cache, LD_LIBRARY_PATH, the
//   driver directories' contents (so "no driver" is cached safely too);
// - the visible devices: /proc/driver/nvidia/gpus, the /dev/nvidiaN nodes,
//   CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER (containers sharing one cache
//   volume see different GPUs);
// - gpuenv's own override variables and version;
// plus a time-to-live as the backstop for anything the key misses. A missing,
// corrupt or unreadable cache only means a fresh detection.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/system/cuda_report.hpp"
#include "gpuenv/system/detection_config.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::system {

struct CacheFingerprint {
  std::string program_version;
  std::optional<std::string> boot_id;
  std::optional<std::string> nvidia_module_version;
  std::optional<std::string> proc_driver_version;
  std::optional<util::FileIdentity> library;
  std::vector<std::string> gpus;
  std::vector<std::string> device_nodes;
  std::optional<std::string> cuda_visible_devices;
  std::optional<std::string> cuda_device_order;
  // Only when the loader's search is used (no GPUENV_LIBCUDA).
  std::optional<util::FileIdentity> loader_cache;
  std::optional<std::string> ld_library_path;
  std::vector<std::string> driver_directory_libraries;
  // gpuenv's override variables (GPUENV_LIBCUDA, GPUENV_LIBNVML, the roots).
  std::optional<std::string> libcuda_override;
  std::optional<std::string> nvml_override;
  std::string proc_root;
  std::string sys_root;
  std::string dev_root;

  friend bool operator==(const CacheFingerprint&, const CacheFingerprint&) = default;
};

// The fingerprint of the system now, for a report that came from
// `library_path` (empty when no library answered).
CacheFingerprint current_fingerprint(const DetectionConfig& config, const std::string& library_path);

// Why an entry written under `cached` does not describe `current`, in words;
// nullopt when it does.
std::optional<std::string> fingerprint_difference(const CacheFingerprint& cached,
                                                  const CacheFingerprint& current);

struct CacheEntry {
  CacheFingerprint fingerprint;
  std::int64_t written_at = 0;  // unix seconds
  CudaReport report;
};

std::string serialize_cache_entry(const CacheEntry& entry);
// An error message when `text` is not an entry this gpuenv can use.
std::expected<CacheEntry, std::string> parse_cache_entry(std::string_view text);

// Why the entry is too old at `now`; nullopt while it is fresh. Entries for
// outcomes that may be transient (a timeout, a crash, an init error) live
// config.failure_cache_ttl, others config.cache_ttl.
std::optional<std::string> expiry_reason(const CacheEntry& entry, std::int64_t now,
                                         const DetectionConfig& config);

std::filesystem::path cache_file_path(const std::filesystem::path& cache_dir);

}  // namespace gpuenv::system
