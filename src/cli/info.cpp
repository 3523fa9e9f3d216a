// `gpuenv info`: version, platform, virtual packages, and where gpuenv keeps
// things. It runs on every shell prompt of some users, so it stays cheap: the
// CUDA answer comes from the detection cache (no driver call when warm) and
// nothing heavy (the solver's pool, repodata) is touched.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/system/cuda_diagnosis.hpp"
#include "gpuenv/system/system_survey.hpp"

namespace gpuenv::cli {
namespace {


std::string cuda_summary(const system::SystemSurvey& survey) {
  if (!survey.cuda) return "not detected: CONDA_OVERRIDE_CUDA / CONDA_OVERRIDE_CUDA_ARCH decide it";
  const auto& report = survey.cuda->report;
  std::string text;
  if (system::driver_usable(report)) {
    text = fmt::format("driver {} (CUDA {}), {} GPU{}", report.driver_release.empty() ? "?" : report.driver_release,
                       system::format_cuda_version(*report.driver_cuda_version), report.devices.size(),
                       report.devices.size() == 1 ? "" : "s");
    if (!report.devices.empty()) {
      text += ":";
      for (const auto& device : report.devices) {
        text += fmt::format(" {} ({})", device.name, device.compute_capability.sm());
      }
    }
  } else {
    text = fmt::format("no usable driver: {} ('gpuenv cuda' says why and what to do)",
                       system::short_failure(report));
  }
  return text;
}

void print_list(std::string_view label, const std::vector<std::string>& items) {
  if (items.empty()) {
    fmt::print("{:>20} : (none)\n", label);
    return;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i == 0) fmt::print("{:>20} : {}\n", label, items[i]);
    else fmt::print("{:>20}   {}\n", "", items[i]);
  }
}

std::vector<std::string> as_strings(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::string> items;
  for (const auto& path : paths) items.push_back(path.string());
  return items;
}

int run_info(bool as_json) {
  system::SurveyOptions options;
  options.program_version = GPUENV_VERSION;
  const auto survey = system::survey_system(util::process_environment(), options);
  const auto& dirs = survey.directories;
  const auto config_files = util::existing_config_files(dirs.config_search_path);
  const auto platform = specs::Platform::current().str();

  if (as_json) {
    const auto document = system::info_to_json(survey, config_files, GPUENV_VERSION, std::string(platform));
    fmt::print("{}\n", document.dump(2));
    return 0;
  }

  fmt::print("{:>20} : {}\n", "gpuenv version", GPUENV_VERSION);
  fmt::print("{:>20} : {}\n", "platform", platform);
  std::vector<std::string> packages;
  for (const auto& package : survey.virtual_packages.packages) packages.push_back(package.str());
  print_list("virtual packages", packages);
  fmt::print("{:>20} : {}\n", "cuda", cuda_summary(survey));
  print_list("config files", as_strings(config_files));
  fmt::print("{:>20} : {}\n", "cache directory", dirs.cache_dir.empty() ? "(none)" : dirs.cache_dir.string());
  print_list("package cache", as_strings(dirs.pkgs_dirs));
  print_list("envs directories", as_strings(dirs.envs_dirs));
  fmt::print("{:>20} : {}\n", "root prefix", dirs.root_prefix.empty() ? "(none)" : dirs.root_prefix.string());
  for (const auto& warning : survey.warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
  return 0;
}

}  // namespace

void add_info_command(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand("info", "Show gpuenv's version, platform, virtual packages and directories");
  auto as_json = std::make_shared<bool>(false);
  auto envs = std::make_shared<bool>(false);
  sub->add_flag("--json", *as_json, "Print one JSON document (see docs/json-output.md)");
  sub->add_flag("-e,--envs", *envs, "List the environments instead (as gpuenv env list)");
  sub->callback([&run, as_json, envs] {
    run = [as_json, envs] { return *envs ? print_environments(*as_json) : run_info(*as_json); };
  });
}

}  // namespace gpuenv::cli
