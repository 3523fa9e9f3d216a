// Turning a detection outcome into words a user can act on.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <vector>

#include "gpuenv/system/cuda_compatibility.hpp"
#include "gpuenv/system/cuda_report.hpp"

namespace gpuenv::system {

// "CUDA_ERROR_NO_DEVICE" for 100; "CUresult 12345" for codes gpuenv does not know.
std::string cuda_error_name(int code);
// "NVML_ERROR_DRIVER_NOT_LOADED" for 9; "nvmlReturn_t 12345" when unknown.
std::string nvml_error_name(int code);
// The name of a driver call's error, by the library the call belongs to.
std::string driver_error_name(const DriverCallError& error);

// What explaining an outcome needs beyond the report itself.
struct ExplainContext {
  std::chrono::milliseconds time_limit{10'000};
  std::optional<std::string> cuda_visible_devices;
};

// One short line for a failed detection ("no NVIDIA driver library (libcuda)
// found"), for summaries such as `gpuenv info`; empty for a usable driver.
std::string short_failure(const CudaReport& report);

// Fills report.message and report.remedy from its status and error; leaves
// both empty for a fully working driver.
void explain_outcome(CudaReport& report, const ExplainContext& context);

// The CUDA toolkits this detected driver can run (release and CUDA version
// from the report); none when the driver is not usable.
std::vector<ToolkitVerdict> toolkits_for_driver(const CudaReport& report, const CudaCompatibilityTables& tables);

}  // namespace gpuenv::system
