#include "gpuenv/system/system_survey.hpp"

#include "gpuenv/system/cuda_diagnosis.hpp"
#include "gpuenv/system/cuda_report_json.hpp"

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

namespace {

using json = nlohmann::ordered_json;

json toolkits_to_json(const std::vector<ToolkitVerdict>& verdicts, const CudaReport& report,
                      const CudaCompatibilityTables& tables) {
  json list = json::array();
  for (const auto& verdict : verdicts) {
    json devices = json::array();
    for (const auto& device : report.devices) {
      devices.push_back({{"index", device.index},
                         {"target", to_string(device_target(tables, verdict.version, device.compute_capability))}});
    }
    list.push_back({{"cuda", verdict.version.str()},
                    {"support", to_string(verdict.support)},
                    {"min_driver", verdict.min_driver.str()},
                    {"devices", devices}});
  }
  return list;
}

json paths_to_json(const std::vector<std::filesystem::path>& paths) {
  json list = json::array();
  for (const auto& path : paths) list.push_back(path.string());
  return list;
}

json path_or_null(const std::filesystem::path& path) { return path.empty() ? json(nullptr) : json(path.string()); }

json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

}  // namespace

json cuda_survey_to_json(const SystemSurvey& survey, const CudaCompatibilityTables& tables) {
  const auto& report = survey.cuda->report;
  auto document = report_to_json(report, &tables);
  document["schema_version"] = 1;
  document["virtual_packages"] = virtual_packages_to_json(survey.virtual_packages.packages);
  document["toolkits"] = toolkits_to_json(toolkits_for_driver(report, tables), report, tables);
  document["detection"] = detection_to_json(survey.cuda->cache, survey.detection_config);
  document["warnings"] = survey.warnings;
  return document;
}

json info_to_json(const SystemSurvey& survey, const std::vector<std::filesystem::path>& config_files,
                  const std::string& program_version, const std::string& platform) {
  json cuda = nullptr;
  if (survey.cuda) {
    const auto& report = survey.cuda->report;
    cuda = {{"status", to_string(report.status)},
            {"usable", driver_usable(report)},
            {"driver_release", text_or_null(report.driver_release)},
            {"cuda_version", report.driver_cuda_version ? json(format_cuda_version(*report.driver_cuda_version))
                                                        : json(nullptr)},
            {"device_count", report.devices.size()},
            {"message", text_or_null(report.message)},
            {"detection", detection_to_json(survey.cuda->cache, survey.detection_config)}};
  }
  const auto& dirs = survey.directories;
  return {
      {"schema_version", 1},
      {"gpuenv_version", program_version},
      {"platform", platform},
      {"virtual_packages", virtual_packages_to_json(survey.virtual_packages.packages)},
      {"cuda", cuda},
      {"config_files", paths_to_json(config_files)},
      {"config_search_path", paths_to_json(dirs.config_search_path)},
      {"cache_dir", path_or_null(dirs.cache_dir)},
      {"pkgs_dirs", paths_to_json(dirs.pkgs_dirs)},
      {"envs_dirs", paths_to_json(dirs.envs_dirs)},
      {"root_prefix", path_or_null(dirs.root_prefix)},
      {"warnings", survey.warnings},
  };
}

}  // namespace gpuenv::system
