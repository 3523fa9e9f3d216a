// What CUDA detection found: the driver, its devices, or why it failed.
// A plain value; it is cached on disk and printed by `gpuenv cuda`.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::system {

struct ComputeCapability {
  int major = 0;
  int minor = 0;

  // Ordered as (major, minor) pairs, never as decimals: 10.0 > 9.0.
  friend auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;

  std::string str() const;  // "9.0"
  std::string sm() const;   // "sm_90", "sm_120"
  // "8.6" -> {8, 6}; accepts CEP 46's form only (digits.digits), plus a
  // trailing architecture-specific letter ("9.0a", "12.0f") that is dropped.
  static std::optional<ComputeCapability> parse(std::string_view text);
};

struct CudaDevice {
  int index = 0;  // the CUDA device ordinal (after CUDA_VISIBLE_DEVICES)
  std::string name;
  ComputeCapability compute_capability;
  std::uint64_t memory_bytes = 0;
  std::string uuid;        // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it
  std::string pci_bus_id;  // "0000:01:00.0"
};

// Each way detection can end. Only `ok` and `no_device` mean a usable driver
// (and so a `__cuda` virtual package).
enum class DetectionStatus {
  ok,                // driver answered, at least one device
  no_device,         // driver answered, no device visible
  no_library,        // no libcuda anywhere we looked
  library_unusable,  // found a libcuda that could not be loaded or lacks cuInit
  stub_library,      // the toolkit's stub libcuda (CUDA_ERROR_STUB_LIBRARY)
  init_failed,       // cuInit returned an error
  query_failed,      // cuInit worked, a later query failed
  timed_out,         // the driver did not answer within the time limit
  crashed,           // the driver killed the probe process (a signal)
  probe_failed,      // gpuenv could not run the probe at all (fork, pipe)
};

std::string_view to_string(DetectionStatus status);
std::optional<DetectionStatus> detection_status_from_string(std::string_view text);

enum class DetectionSource { libcuda, nvml };

std::string_view to_string(DetectionSource source);
std::optional<DetectionSource> detection_source_from_string(std::string_view text);

// A driver call that returned an error.
struct DriverCallError {
  std::string function;  // "cuInit", "nvmlInit_v2", ...
  int code = 0;          // CUresult or nvmlReturn_t
};

struct CudaReport {
  DetectionStatus status = DetectionStatus::no_library;
  std::optional<DetectionSource> source;
  // cuDriverGetVersion's answer (13000 for CUDA 13.0), when the driver gave one.
  std::optional<int> driver_cuda_version;
  // The driver release ("580.159.04") and where it was read from.
  std::string driver_release;
  std::string driver_release_source;
  // The library that answered (symbolic links resolved).
  std::string library_path;
  // Every place looked for libcuda, in order.
  std::vector<std::string> searched;
  std::vector<CudaDevice> devices;
  std::optional<DriverCallError> error;
  // For timeouts and crashes: the driver call that was running.
  std::string failed_call;
  int signal = 0;
  // What went wrong and what to do about it, in words; empty when ok.
  std::string message;
  std::string remedy;
  // Secondary facts worth telling (e.g. "libcuda was a stub; NVML answered").
  std::vector<std::string> notes;
  double probe_ms = 0;
};

// Whether the driver is usable, i.e. `__cuda` is present before overrides.
bool driver_usable(const CudaReport& report);

// The lowest compute capability over all devices, as CEP 46 defines
// `__cuda_arch`; nullopt without devices or when one device's is unknown.
std::optional<ComputeCapability> lowest_compute_capability(const CudaReport& report);

// cuDriverGetVersion's integer as "major.minor": 13000 -> "13.0", 12040 -> "12.4".
std::string format_cuda_version(int version);

// 16 raw UUID bytes as nvidia-smi prints them: "GPU-" + 8-4-4-4-12 hex digits.
std::string format_gpu_uuid(const unsigned char (&bytes)[16]);

}  // namespace gpuenv::system
