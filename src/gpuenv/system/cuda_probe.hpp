// Asking the driver, in a child process with a time limit.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "gpuenv/system/cuda_report.hpp"
#include "gpuenv/system/probe_transcript.hpp"
#include "gpuenv/util/subprocess.hpp"

namespace gpuenv::system {

struct ProbePlan {
  // Tried in order: bare names go through the dynamic loader's search,
  // paths are opened as they are.
  std::vector<std::string> libcuda_candidates;
  // Where NVML is tried when libcuda cannot be used; empty = never.
  std::vector<std::string> nvml_candidates;
  // For the whole probe, fallbacks included.
  std::chrono::milliseconds time_limit{10'000};
};

// Runs the libcuda probe in a forked child. When the library found is the
// toolkit's stub, the candidates after it are tried too (a stub directory on
// LD_LIBRARY_PATH often hides a real driver). When no usable libcuda is
// found, NVML is asked instead. Never throws; failures are in the report's
// status. message/remedy and the driver release are left to the caller.
CudaReport probe_cuda(const ProbePlan& plan);

// How one child's run and transcript become a report; exposed for tests.
CudaReport report_from_probe(const util::ForkedChildResult& run, const ProbeTranscript& transcript,
                             DetectionSource source);

}  // namespace gpuenv::system
