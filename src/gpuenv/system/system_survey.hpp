// One call that gathers what `gpuenv info` and `gpuenv cuda` show: the
// user's directories, host facts, CUDA detection (through its cache) and the
// virtual packages they yield. Keeps the CLI files thin.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/system/cuda_compatibility.hpp"
#include "gpuenv/system/cuda_detection.hpp"
#include "gpuenv/system/host_facts.hpp"
#include "gpuenv/system/virtual_packages.hpp"
#include "gpuenv/util/environment.hpp"
#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::system {

struct SurveyOptions {
  std::string program_version;
  bool refresh = false;                              // ignore the detection cache
  std::optional<std::chrono::milliseconds> time_limit;  // overrides GPUENV_CUDA_TIMEOUT
  // Detect even when CONDA_OVERRIDE_CUDA* decide the virtual packages
  // (`gpuenv cuda` always reports the real driver).
  bool always_detect_cuda = false;
};

struct SystemSurvey {
  util::UserDirectories directories;
  DetectionConfig detection_config;
  HostFacts host;
  // Absent when the overrides made detection unnecessary.
  std::optional<CudaDetection> cuda;
  VirtualPackageOverrides overrides;
  VirtualPackageSet virtual_packages;
  // Configuration problems and override notes, in words.
  std::vector<std::string> warnings;
};

SystemSurvey survey_system(const util::EnvLookup& env, const SurveyOptions& options);

nlohmann::ordered_json virtual_packages_to_json(const std::vector<VirtualPackage>& packages);

// The cache outcome as `gpuenv cuda --json` and `gpuenv info --json` show it.
nlohmann::ordered_json detection_to_json(const CacheOutcome& cache, const DetectionConfig& config);

// `gpuenv cuda --json` but its "conditions" (docs/json-output.md): the
// report, the virtual packages, the toolkits this driver can run with what
// each builds for every GPU, the detection and the warnings. The survey
// must hold a detection (SurveyOptions::always_detect_cuda).
nlohmann::ordered_json cuda_survey_to_json(const SystemSurvey& survey, const CudaCompatibilityTables& tables);

// `gpuenv info --json` (docs/json-output.md): version, platform, virtual
// packages, a summary of the CUDA detection (null without one) and where
// gpuenv keeps things; `config_files` are the configuration files found.
nlohmann::ordered_json info_to_json(const SystemSurvey& survey, const std::vector<std::filesystem::path>& config_files,
                                    const std::string& program_version, const std::string& platform);

}  // namespace gpuenv::system
