#include "gpuenv/system/cuda_detection.hpp"

#include <fmt/format.h>

#include <chrono>

#include "gpuenv/system/cuda_cache.hpp"
#include "gpuenv/system/cuda_diagnosis.hpp"
#include "gpuenv/system/cuda_probe.hpp"
#include "gpuenv/system/nvidia_system_files.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::system {
namespace {

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The release ("580.159.04") from the most direct source available. The
// kernel's own files come first: they describe the driver actually loaded.
void fill_driver_release(const DetectionConfig& config, CudaReport& report) {
  if (auto text = read_proc_driver_version(config.proc_root)) {
    if (auto release = driver_release_from_proc_version(*text)) {
      report.driver_release = *release;
      report.driver_release_source = (config.proc_root / "driver/nvidia/version").string();
      return;
    }
  }
  if (auto module = read_nvidia_module_version(config.sys_root); module && is_dotted_number(*module)) {
    report.driver_release = *module;
    report.driver_release_source = (config.sys_root / "module/nvidia/version").string();
    return;
  }
  if (!report.driver_release.empty()) return;  // NVML told us
  if (auto release = driver_release_from_library_name(report.library_path)) {
    report.driver_release = *release;
    report.driver_release_source = "library file name (" + report.library_path + ")";
  }
}

}  // namespace

std::string_view to_string(CacheOutcome::State state) {
  switch (state) {
    case CacheOutcome::State::hit: return "hit";
    case CacheOutcome::State::miss: return "miss";
    case CacheOutcome::State::refreshed: return "refreshed";
    case CacheOutcome::State::disabled: return "disabled";
  }
  return "disabled";
}

CudaReport detect_cuda_uncached(const DetectionConfig& config) {
  auto report = probe_cuda(config.probe_plan());
  fill_driver_release(config, report);
  const bool library_missing = report.status == DetectionStatus::no_library ||
                               report.status == DetectionStatus::library_unusable ||
                               report.status == DetectionStatus::stub_library;
  if (library_missing && !report.driver_release.empty()) {
    report.notes.push_back(fmt::format(
        "the NVIDIA kernel driver {} is loaded, so the driver is installed; its CUDA library is not "
        "usable from here",
        report.driver_release));
  }
  explain_outcome(report, {config.time_limit, config.cuda_visible_devices});
  return report;
}

CudaDetection detect_cuda(const DetectionConfig& config) {
  CudaDetection detection;
  auto& cache = detection.cache;
  const auto boot_id = read_boot_id(config.proc_root);
  if (config.cache_dir.empty()) {
    cache.reason = "no cache directory (set HOME, XDG_CACHE_HOME or GPUENV_CACHE_DIR)";
  } else if (!boot_id) {
    // Without a boot session id a cached answer could outlive a reboot.
    cache.reason = fmt::format("cannot read the boot id ({}/sys/kernel/random/boot_id)",
                               config.proc_root.string());
  } else {
    cache.file = cache_file_path(config.cache_dir);
    if (config.refresh) {
      cache.state = CacheOutcome::State::refreshed;
      cache.reason = "asked to detect afresh (--refresh)";
    } else {
      cache.state = CacheOutcome::State::miss;
      if (auto text = util::read_file(cache.file)) {
        if (auto entry = parse_cache_entry(*text)) {
          const auto current = current_fingerprint(config, entry->report.library_path);
          if (auto changed = fingerprint_difference(entry->fingerprint, current)) {
            cache.reason = *changed;
          } else if (auto expired = expiry_reason(*entry, unix_now(), config)) {
            cache.reason = *expired;
          } else {
            cache.state = CacheOutcome::State::hit;
            detection.report = std::move(entry->report);
            return detection;
          }
        } else {
          cache.reason = fmt::format("the cache file is unusable: {}", entry.error());
        }
      } else if (util::file_identity(cache.file)) {
        cache.reason = "cannot read the cache file";
      } else {
        cache.reason = "nothing cached yet";
      }
    }
  }

  detection.report = detect_cuda_uncached(config);
  if (cache.state == CacheOutcome::State::miss || cache.state == CacheOutcome::State::refreshed) {
    CacheEntry entry{current_fingerprint(config, detection.report.library_path), unix_now(), detection.report};
    if (auto error = util::write_file_atomically(cache.file, serialize_cache_entry(entry))) {
      cache.write_error = *error;
    }
  }
  return detection;
}

}  // namespace gpuenv::system
