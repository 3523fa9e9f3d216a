#include "gpuenv/system/cuda_probe.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuenv/system/cuda_diagnosis.hpp"
#include "gpuenv/system/cuda_probe_child.hpp"
#include "gpuenv/system/driver_abi.hpp"

namespace gpuenv::system {
namespace {

using Clock = std::chrono::steady_clock;

struct CallNames {
  const char* init;
  const char* version;
  const char* count;
};

CallNames call_names(DetectionSource source) {
  if (source == DetectionSource::nvml) {
    return {"nvmlInit_v2", "nvmlSystemGetCudaDriverVersion_v2", "nvmlDeviceGetCount_v2"};
  }
  return {"cuInit", "cuDriverGetVersion", "cuDeviceGetCount"};
}

// Sets status and error from a transcript whose child ran to its end.
void classify_finished_probe(const ProbeTranscript& transcript, DetectionSource source,
                             CudaReport& report) {
  const auto names = call_names(source);
  if (!transcript.loaded_index) {
    const bool found_some = std::any_of(transcript.load_errors.begin(), transcript.load_errors.end(),
                                        [](const auto& error) { return !error.file_missing; });
    report.status = found_some ? DetectionStatus::library_unusable : DetectionStatus::no_library;
    return;
  }
  for (const auto& missing : transcript.missing_symbols) {
    if (missing == names.init || missing == names.version) {
      report.status = DetectionStatus::library_unusable;
      report.notes.push_back(fmt::format("{} does not export {}", transcript.loaded_path, missing));
      return;
    }
  }
  if (const DriverCallError* init_error = transcript.error_of(names.init)) {
    report.error = *init_error;
    if (source == DetectionSource::libcuda && init_error->code == abi::CUDA_ERROR_STUB_LIBRARY) {
      report.status = DetectionStatus::stub_library;
    } else if (source == DetectionSource::libcuda && init_error->code == abi::CUDA_ERROR_NO_DEVICE &&
               transcript.driver_version) {
      report.status = DetectionStatus::no_device;
    } else {
      report.status = DetectionStatus::init_failed;
    }
    return;
  }
  if (!transcript.driver_version) {
    report.status = DetectionStatus::query_failed;
    if (const auto* error = transcript.error_of(names.version)) report.error = *error;
    return;
  }
  if (const DriverCallError* count_error = transcript.error_of(names.count)) {
    report.status = DetectionStatus::query_failed;
    report.error = *count_error;
    return;
  }
  if (!transcript.device_count) {
    report.status = DetectionStatus::query_failed;
    report.notes.push_back(fmt::format("{} does not export {}", transcript.loaded_path, names.count));
    return;
  }
  if (*transcript.device_count == 0) {
    report.status = DetectionStatus::no_device;
    return;
  }
  report.status = DetectionStatus::ok;
  for (int index = 0; index < *transcript.device_count; ++index) {
    const auto found = transcript.devices.find(index);
    const bool complete = found != transcript.devices.end() && found->second.has_compute_capability;
    if (found != transcript.devices.end()) report.devices.push_back(found->second.device);
    if (!complete && report.status == DetectionStatus::ok) {
      report.status = DetectionStatus::query_failed;
      // The first device call that failed says why its capability is unknown.
      for (const auto& error : transcript.errors) {
        if (error.function != names.init) {
          report.error = error;
          break;
        }
      }
      if (!report.error) {
        report.notes.push_back(fmt::format("the compute capability of device {} is unknown", index));
      }
    }
  }
}

std::vector<std::string> candidates_after(const std::vector<std::string>& candidates, std::size_t index,
                                          const std::string& skipped_path) {
  std::vector<std::string> rest;
  for (std::size_t i = index + 1; i < candidates.size(); ++i) {
    // A bare name would go through the same loader search and find the same
    // stub; only explicit places can lead elsewhere.
    if (candidates[i].find('/') == std::string::npos || candidates[i] == skipped_path) continue;
    rest.push_back(candidates[i]);
  }
  return rest;
}

std::chrono::milliseconds time_left(Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

struct ProbeRun {
  CudaReport report;
  std::optional<std::size_t> loaded_index;  // into the candidates tried
};

ProbeRun run_probe(const std::vector<std::string>& candidates, DetectionSource source,
                   std::chrono::milliseconds time_limit) {
  const auto child_main = [&candidates, source](int fd) {
    return source == DetectionSource::nvml ? probe_nvml_in_child(fd, candidates)
                                           : probe_libcuda_in_child(fd, candidates);
  };
  const auto run = util::run_in_forked_child(child_main, time_limit);
  const auto transcript = parse_probe_transcript(run.output);
  return {report_from_probe(run, transcript, source), transcript.loaded_index};
}

std::string short_reason(const CudaReport& report) {
  switch (report.status) {
    case DetectionStatus::no_library: return "no libcuda was found";
    case DetectionStatus::stub_library: return fmt::format("{} is the toolkit's stub", report.library_path);
    case DetectionStatus::library_unusable:
      return report.notes.empty() ? "libcuda could not be loaded" : report.notes.front();
    default: return std::string(to_string(report.status));
  }
}

}  // namespace

CudaReport report_from_probe(const util::ForkedChildResult& run, const ProbeTranscript& transcript,
                             DetectionSource source) {
  CudaReport report;
  if (transcript.loaded_index) report.source = source;
  report.searched = transcript.searched;
  report.library_path = transcript.loaded_path;
  report.driver_cuda_version = transcript.driver_version;
  report.probe_ms = std::chrono::duration<double, std::milli>(run.elapsed).count();
  if (source == DetectionSource::nvml && !transcript.driver_release.empty()) {
    report.driver_release = transcript.driver_release;
    report.driver_release_source = "NVML (nvmlSystemGetDriverVersion)";
  }
  for (const auto& error : transcript.load_errors) {
    if (!error.file_missing) report.notes.push_back(fmt::format("cannot load {}: {}", error.candidate, error.message));
  }
  switch (run.ending) {
    case util::ForkedChildResult::Ending::not_started:
      report.status = DetectionStatus::probe_failed;
      report.notes.push_back(run.error);
      break;
    case util::ForkedChildResult::Ending::timed_out:
      report.status = DetectionStatus::timed_out;
      report.failed_call = transcript.last_call;
      break;
    case util::ForkedChildResult::Ending::signaled:
      report.status = DetectionStatus::crashed;
      report.signal = run.signal;
      report.failed_call = transcript.last_call;
      break;
    case util::ForkedChildResult::Ending::exited:
      if (!transcript.finished) {
        report.status = DetectionStatus::probe_failed;
        report.notes.push_back(fmt::format("the probe exited with status {} before it finished{}",
                                           run.exit_code,
                                           transcript.last_call.empty()
                                               ? std::string()
                                               : fmt::format(" (in {})", transcript.last_call)));
      } else {
        classify_finished_probe(transcript, source, report);
      }
      break;
  }
  if (report.status != DetectionStatus::ok && report.status != DetectionStatus::query_failed) {
    report.devices.clear();
  }
  return report;
}

CudaReport probe_cuda(const ProbePlan& plan) {
  const auto started = Clock::now();
  const auto deadline = started + plan.time_limit;
  auto first = run_probe(plan.libcuda_candidates, DetectionSource::libcuda, plan.time_limit);
  auto report = std::move(first.report);

  if (report.status == DetectionStatus::stub_library && first.loaded_index) {
    // Look past the stub: a real driver may sit in one of the later places.
    const auto rest = candidates_after(plan.libcuda_candidates, *first.loaded_index, report.library_path);
    if (!rest.empty() && time_left(deadline).count() > 0) {
      auto retry = run_probe(rest, DetectionSource::libcuda, time_left(deadline)).report;
      if (retry.status != DetectionStatus::no_library && retry.status != DetectionStatus::stub_library) {
        retry.searched.insert(retry.searched.begin(), report.searched.begin(), report.searched.end());
        retry.notes.insert(retry.notes.begin(),
                           fmt::format("skipped the CUDA toolkit's stub library {}", report.library_path));
        report = std::move(retry);
      } else {
        report.searched.insert(report.searched.end(), retry.searched.begin(), retry.searched.end());
      }
    }
  }

  const bool libcuda_missing = report.status == DetectionStatus::no_library ||
                               report.status == DetectionStatus::library_unusable ||
                               report.status == DetectionStatus::stub_library;
  if (libcuda_missing && !plan.nvml_candidates.empty() && time_left(deadline).count() > 0) {
    auto nvml = run_probe(plan.nvml_candidates, DetectionSource::nvml, time_left(deadline)).report;
    if (nvml.status == DetectionStatus::ok || nvml.status == DetectionStatus::no_device) {
      nvml.notes.insert(nvml.notes.begin(),
                        fmt::format("libcuda could not be used ({}); NVML ({}) answered instead",
                                    short_reason(report), nvml.library_path));
      nvml.searched.insert(nvml.searched.begin(), report.searched.begin(), report.searched.end());
      report = std::move(nvml);
    } else if (nvml.status == DetectionStatus::no_library) {
      report.notes.push_back("NVML (libnvidia-ml.so.1) was not found either");
    } else {
      report.notes.push_back(fmt::format(
          "NVML ({}) did not help either: {}", nvml.library_path.empty() ? "libnvidia-ml" : nvml.library_path,
          nvml.error ? fmt::format("{} failed with {}", nvml.error->function, driver_error_name(*nvml.error))
                     : std::string(to_string(nvml.status))));
    }
  }
  report.probe_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return report;
}

}  // namespace gpuenv::system
