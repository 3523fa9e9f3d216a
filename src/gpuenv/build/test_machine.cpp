#include "gpuenv/build/test_machine.hpp"

#include <algorithm>

#include "gpuenv/system/system_survey.hpp"

namespace gpuenv::build {

std::optional<std::string> test_cuda_override(const recipe::RenderedVariant& variant,
                                              const environment::Settings& settings) {
  const auto version = variant.variant.find("cuda_compiler_version");
  if (version == variant.variant.end()) return std::nullopt;
  const std::string cuda = version->second.display();
  if (cuda.empty() || cuda == "None") return std::nullopt;
  if (settings.env && settings.env("CONDA_OVERRIDE_CUDA")) return std::nullopt;  // the user decided
  const auto survey = system::survey_system(settings.env, {});
  const auto& packages = survey.virtual_packages.packages;
  const bool has_driver =
      std::any_of(packages.begin(), packages.end(), [](const auto& package) { return package.name == "__cuda"; });
  if (has_driver) return std::nullopt;
  return cuda;
}

environment::Settings settings_with_cuda_override(const environment::Settings& settings, const std::string& version) {
  environment::Settings changed = settings;
  changed.env = [inner = settings.env, version](std::string_view name) -> std::optional<std::string> {
    if (name == "CONDA_OVERRIDE_CUDA") return version;
    return inner ? inner(name) : std::nullopt;
  };
  return changed;
}

}  // namespace gpuenv::build
