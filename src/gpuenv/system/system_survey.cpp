#include "gpuenv/system/system_survey.hpp"

namespace gpuenv::system {

SystemSurvey survey_system(const util::EnvLookup& env, const SurveyOptions& options) {
  SystemSurvey survey;
  survey.directories = util::resolve_user_directories(env);
  auto from_env = detection_config_from_environment(env, survey.directories.cache_dir);
  survey.detection_config = std::move(from_env.config);
  survey.warnings = std::move(from_env.warnings);
  auto& config = survey.detection_config;
  config.program_version = options.program_version;
  config.refresh = options.refresh;
  if (options.time_limit) config.time_limit = *options.time_limit;

  survey.host = detect_host_facts();
  survey.overrides = VirtualPackageOverrides::from_environment(env);
  VirtualPackageInputs inputs;
  inputs.host = survey.host;
  if (options.always_detect_cuda || cuda_detection_needed(survey.overrides)) {
    survey.cuda = detect_cuda(config);
    inputs.cuda = cuda_facts(survey.cuda->report);
  }
  survey.virtual_packages = compute_virtual_packages(inputs, survey.overrides);
  survey.warnings.insert(survey.warnings.end(), survey.virtual_packages.warnings.begin(),
                         survey.virtual_packages.warnings.end());
  return survey;
}

nlohmann::ordered_json virtual_packages_to_json(const std::vector<VirtualPackage>& packages) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& package : packages) {
    list.push_back({{"name", package.name}, {"version", package.version}, {"build", package.build}});
  }
  return list;
}

nlohmann::ordered_json detection_to_json(const CacheOutcome& cache, const DetectionConfig& config) {
  return {
      {"from_cache", cache.state == CacheOutcome::State::hit},
      {"cache", to_string(cache.state)},
      {"cache_reason", cache.reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cache.reason)},
      {"cache_file", cache.file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cache.file.string())},
      {"cache_write_error", cache.write_error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cache.write_error)},
      {"time_limit_s", static_cast<double>(config.time_limit.count()) / 1000.0},
  };
}

}  // namespace gpuenv::system
