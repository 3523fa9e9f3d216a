// CUDA detection as gpuenv uses it: the cache first, the driver probe when
// the cache cannot answer, the driver release from the kernel's files, and
// the outcome explained in words. Never throws and never fails gpuenv: a
// broken or missing driver is an ordinary report.
#pragma once

#include <filesystem>
#include <string>

#include "gpuenv/system/cuda_report.hpp"
#include "gpuenv/system/detection_config.hpp"

namespace gpuenv::system {

struct CacheOutcome {
  enum class State {
    hit,        // answered from the cache; the driver was not touched
    miss,       // no usable entry (reason says why); detected afresh
    refreshed,  // the caller asked to ignore the cache
    disabled,   // no cache directory or no boot id (reason says why)
  };
  State state = State::disabled;
  std::string reason;
  std::filesystem::path file;
  // Set when the fresh result could not be stored (detection still worked).
  std::string write_error;
};

std::string_view to_string(CacheOutcome::State state);

struct CudaDetection {
  CudaReport report;
  CacheOutcome cache;
};

CudaDetection detect_cuda(const DetectionConfig& config);

// Detection without the cache: the probe, the driver release, the words.
CudaReport detect_cuda_uncached(const DetectionConfig& config);

}  // namespace gpuenv::system
