#include "gpuenv/system/cuda_diagnosis.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "gpuenv/util/subprocess.hpp"

namespace gpuenv::system {
namespace {

struct KnownCode {
  int code;
  std::string_view name;
  // What the code means when cuInit returns it, and what to do; empty when
  // the generic wording is as good as anything we could say.
  std::string_view meaning;
  std::string_view remedy;
};

constexpr std::string_view no_detection_hint =
    "To solve for a CUDA machine without detection, set CONDA_OVERRIDE_CUDA (e.g. "
    "CONDA_OVERRIDE_CUDA=12.8) and CONDA_OVERRIDE_CUDA_ARCH (e.g. 9.0).";

// Values and names from cuda.h (CUresult). 35 is not in cuda.h's CUresult
// list but libcuda returns it from cuInit when it is older than the kernel
// driver's interface; tools built on the driver API (ollama, ...) name it so.
constexpr std::array<KnownCode, 24> cuda_codes = {{
    {1, "CUDA_ERROR_INVALID_VALUE", "", ""},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "the driver ran out of memory while initialising", ""},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "", ""},
    {4, "CUDA_ERROR_DEINITIALIZED", "", ""},
    {34, "CUDA_ERROR_STUB_LIBRARY",
     "this libcuda is the CUDA toolkit's link-time stub, not a driver",
     "Remove the toolkit's lib64/stubs directory from LD_LIBRARY_PATH, or install the NVIDIA "
     "driver."},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER",
     "the CUDA driver library (libcuda) does not match the NVIDIA kernel driver that is loaded",
     "Reboot (or reload the nvidia kernel modules) after a driver upgrade; in a container, use the "
     "host's libcuda through the NVIDIA Container Toolkit instead of one installed in the image."},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE",
     "the GPUs are busy in exclusive-process or prohibited compute mode",
     "Check the compute mode with 'nvidia-smi -q -d COMPUTE', or wait for the process holding the "
     "GPU to finish."},
    {100, "CUDA_ERROR_NO_DEVICE", "the driver sees no CUDA device", ""},
    {101, "CUDA_ERROR_INVALID_DEVICE", "", ""},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED", "the vGPU (GRID) license is not applied",
     "License the virtual GPU (see 'nvidia-smi -q | grep -i license')."},
    {304, "CUDA_ERROR_OPERATING_SYSTEM",
     "an operating system call failed, most often opening /dev/nvidia*",
     "Check that this user may open /dev/nvidia* (e.g. is in the 'video' or 'render' group) and "
     "look for NVRM messages in dmesg."},
    {800, "CUDA_ERROR_NOT_PERMITTED", "", ""},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "", ""},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY",
     "the system is not ready for CUDA work (on NVSwitch systems, the fabric manager is not "
     "running)",
     "Start the fabric manager ('systemctl start nvidia-fabricmanager') and check that its version "
     "matches the driver."},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "the CUDA driver library (libcuda) and the loaded NVIDIA kernel module are different versions",
     "Reboot (or reload the nvidia kernel modules) after a driver upgrade; in a container, use the "
     "host's libcuda through the NVIDIA Container Toolkit instead of one installed in the image."},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
     "a CUDA forward-compatibility package (cuda-compat) is in use, but this GPU does not support "
     "forward compatibility",
     "Remove the cuda-compat directory from LD_LIBRARY_PATH (or uninstall cuda-compat), or upgrade "
     "the driver itself."},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED", "the MPS client could not reach the MPS daemon",
     "Start the MPS control daemon (nvidia-cuda-mps-control -d) or unset "
     "CUDA_MPS_PIPE_DIRECTORY."},
    {806, "CUDA_ERROR_MPS_RPC_FAILURE", "a call to the MPS server failed",
     "Restart the MPS control daemon (nvidia-cuda-mps-control)."},
    {807, "CUDA_ERROR_MPS_SERVER_NOT_READY", "the MPS server is not ready",
     "Wait for the MPS server to recover, or restart it."},
    {808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED", "the MPS server has no room for another client", ""},
    {809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED", "the MPS server has no room for another connection",
     ""},
    {909, "CUDA_ERROR_TIMEOUT", "", ""},
    {911, "CUDA_ERROR_EXTERNAL_DEVICE", "", ""},
    {999, "CUDA_ERROR_UNKNOWN", "the driver failed to initialise for a reason it does not report",
     "Run nvidia-smi and look for NVRM or Xid messages in dmesg; a reboot after installing the "
     "driver often fixes this; on a laptop the GPU may be powered off."},
}};

// Values and names from nvml.h (nvmlReturn_t).
constexpr std::array<std::string_view, 30> nvml_names = {
    "NVML_SUCCESS",
    "NVML_ERROR_UNINITIALIZED",
    "NVML_ERROR_INVALID_ARGUMENT",
    "NVML_ERROR_NOT_SUPPORTED",
    "NVML_ERROR_NO_PERMISSION",
    "NVML_ERROR_ALREADY_INITIALIZED",
    "NVML_ERROR_NOT_FOUND",
    "NVML_ERROR_INSUFFICIENT_SIZE",
    "NVML_ERROR_INSUFFICIENT_POWER",
    "NVML_ERROR_DRIVER_NOT_LOADED",
    "NVML_ERROR_TIMEOUT",
    "NVML_ERROR_IRQ_ISSUE",
    "NVML_ERROR_LIBRARY_NOT_FOUND",
    "NVML_ERROR_FUNCTION_NOT_FOUND",
    "NVML_ERROR_CORRUPTED_INFOROM",
    "NVML_ERROR_GPU_IS_LOST",
    "NVML_ERROR_RESET_REQUIRED",
    "NVML_ERROR_OPERATING_SYSTEM",
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
    "NVML_ERROR_IN_USE",
    "NVML_ERROR_MEMORY",
    "NVML_ERROR_NO_DATA",
    "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
    "NVML_ERROR_INSUFFICIENT_RESOURCES",
    "NVML_ERROR_FREQ_NOT_SUPPORTED",
    "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
    "NVML_ERROR_DEPRECATED",
    "NVML_ERROR_NOT_READY",
    "NVML_ERROR_GPU_NOT_FOUND",
    "NVML_ERROR_INVALID_STATE",
};

const KnownCode* find_cuda_code(int code) {
  for (const auto& known : cuda_codes) {
    if (known.code == code) return &known;
  }
  return nullptr;
}

std::string seconds_text(std::chrono::milliseconds duration) {
  return fmt::format("{:g} s", static_cast<double>(duration.count()) / 1000.0);
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const auto& item : items) {
    if (!text.empty()) text += separator;
    text += item;
  }
  return text;
}

void explain_init_failure(CudaReport& report) {
  const auto& error = *report.error;
  const auto name = driver_error_name(error);
  if (report.source == DetectionSource::nvml || error.function.starts_with("nvml")) {
    report.message = fmt::format("NVML's {} failed with {}", error.function, name);
    report.remedy = std::string("Run nvidia-smi to see whether the driver works. ") +
                    std::string(no_detection_hint);
    return;
  }
  const KnownCode* known = find_cuda_code(error.code);
  report.message = fmt::format("{} failed with {}", error.function, name);
  if (known != nullptr && !known->meaning.empty()) report.message += fmt::format(": {}", known->meaning);
  if (!report.library_path.empty()) report.message += fmt::format(" (library {})", report.library_path);
  report.remedy = known != nullptr && !known->remedy.empty()
                      ? std::string(known->remedy)
                      : "Run nvidia-smi to see whether the driver works, and look for NVRM or "
                        "Xid messages in dmesg.";
  report.remedy += fmt::format(" {}", no_detection_hint);
}

}  // namespace

std::string cuda_error_name(int code) {
  if (code == 0) return "CUDA_SUCCESS";
  if (const KnownCode* known = find_cuda_code(code)) return std::string(known->name);
  return fmt::format("CUresult {}", code);
}

std::string nvml_error_name(int code) {
  if (code >= 0 && code < static_cast<int>(nvml_names.size())) return std::string(nvml_names[code]);
  if (code == 999) return "NVML_ERROR_UNKNOWN";
  return fmt::format("nvmlReturn_t {}", code);
}

std::string driver_error_name(const DriverCallError& error) {
  return error.function.starts_with("nvml") ? nvml_error_name(error.code) : cuda_error_name(error.code);
}

std::string short_failure(const CudaReport& report) {
  const auto error_text = [&report] {
    return report.error ? fmt::format("{} failed with {}", report.error->function, driver_error_name(*report.error))
                        : std::string("a driver call failed");
  };
  switch (report.status) {
    case DetectionStatus::ok: return {};
    case DetectionStatus::no_device: return "the driver reports no CUDA device";
    case DetectionStatus::no_library: return "no NVIDIA driver library (libcuda) found";
    case DetectionStatus::library_unusable: return "the libcuda found could not be loaded";
    case DetectionStatus::stub_library: return "only the CUDA toolkit's stub libcuda was found";
    case DetectionStatus::init_failed: return error_text();
    case DetectionStatus::query_failed: return "the driver initialised, but " + error_text();
    case DetectionStatus::timed_out: return "the driver did not answer in time";
    case DetectionStatus::crashed: return "the driver crashed (" + util::describe_signal(report.signal) + ")";
    case DetectionStatus::probe_failed: return "gpuenv could not run its CUDA probe";
  }
  return {};
}

void explain_outcome(CudaReport& report, const ExplainContext& context) {
  report.message.clear();
  report.remedy.clear();
  switch (report.status) {
    case DetectionStatus::ok:
      return;
    case DetectionStatus::no_device:
      report.message = fmt::format(
          "the NVIDIA driver works (CUDA {}) but reports no CUDA device",
          report.driver_cuda_version ? format_cuda_version(*report.driver_cuda_version) : "?");
      if (context.cuda_visible_devices) {
        report.message += fmt::format("; CUDA_VISIBLE_DEVICES='{}' selects which devices are visible",
                                      *context.cuda_visible_devices);
        report.remedy = "Unset CUDA_VISIBLE_DEVICES or list existing devices in it. ";
      }
      report.remedy +=
          "Check 'nvidia-smi'; in a container, pass the GPUs in (e.g. 'docker run --gpus all'). "
          "__cuda is still offered (the driver is there); __cuda_arch is not (CEP 46).";
      return;
    case DetectionStatus::no_library:
      report.message = fmt::format("no NVIDIA CUDA driver library was found (searched: {})",
                                   join(report.searched, ", "));
      report.remedy = fmt::format(
          "If this machine has an NVIDIA GPU, install the NVIDIA driver (it provides libcuda.so.1); "
          "in a container, start it with the NVIDIA Container Toolkit (e.g. 'docker run --gpus "
          "all'); or name the library with GPUENV_LIBCUDA=/path/to/libcuda.so.1. {}",
          no_detection_hint);
      return;
    case DetectionStatus::library_unusable:
      report.message = "a libcuda was found but could not be used";
      if (!report.notes.empty()) report.message += ": " + report.notes.front();
      report.remedy = fmt::format(
          "Reinstall the NVIDIA driver, and check that the library is built for this machine's "
          "architecture. {}",
          no_detection_hint);
      return;
    case DetectionStatus::stub_library: {
      const KnownCode* stub = find_cuda_code(34);
      report.message = fmt::format("{} is the CUDA toolkit's stub libcuda (cuInit returned "
                                   "CUDA_ERROR_STUB_LIBRARY): it lets programs link, but runs nothing",
                                   report.library_path.empty() ? "the libcuda found" : report.library_path);
      report.remedy = fmt::format("{} {}", stub->remedy, no_detection_hint);
      return;
    }
    case DetectionStatus::init_failed:
    case DetectionStatus::query_failed:
      if (report.error) {
        explain_init_failure(report);
        if (report.status == DetectionStatus::query_failed) {
          report.message = "the driver initialised, but " + report.message;
        }
      } else {
        report.message = "the driver did not complete the device queries";
        report.remedy = std::string(no_detection_hint);
      }
      return;
    case DetectionStatus::timed_out:
      report.message = fmt::format("the CUDA driver did not answer within {}{}; the probe was stopped",
                                   seconds_text(context.time_limit),
                                   report.failed_call.empty()
                                       ? std::string()
                                       : fmt::format(" (it was still in {})", report.failed_call));
      report.remedy = fmt::format(
          "A driver that hangs needs attention: run nvidia-smi and look for Xid errors in dmesg. If "
          "it is only slow to wake the GPU, raise the limit with GPUENV_CUDA_TIMEOUT=<seconds> or "
          "'gpuenv cuda --timeout <seconds>'. {}",
          no_detection_hint);
      return;
    case DetectionStatus::crashed:
      report.message = fmt::format("the CUDA driver crashed the detection process with {}{}",
                                   util::describe_signal(report.signal),
                                   report.failed_call.empty() ? std::string()
                                                              : fmt::format(" in {}", report.failed_call));
      report.remedy = fmt::format("Reinstall or upgrade the NVIDIA driver (gpuenv itself kept running). {}",
                                  no_detection_hint);
      return;
    case DetectionStatus::probe_failed:
      report.message = "gpuenv could not run its CUDA probe";
      if (!report.notes.empty()) report.message += ": " + report.notes.back();
      report.remedy = fmt::format("Check process limits (ulimit -u) and free memory. {}", no_detection_hint);
      return;
  }
}

std::vector<ToolkitVerdict> toolkits_for_driver(const CudaReport& report, const CudaCompatibilityTables& tables) {
  if (!driver_usable(report)) return {};
  std::optional<DriverRelease> release;
  if (!report.driver_release.empty()) release = DriverRelease::parse(report.driver_release);
  std::optional<CudaVersion> driver_cuda;
  if (report.driver_cuda_version) driver_cuda = CudaVersion::from_driver_api(*report.driver_cuda_version);
  return judge_toolkits(tables, release, driver_cuda);
}

}  // namespace gpuenv::system
