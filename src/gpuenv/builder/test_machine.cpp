#include "gpuenv/builder/test_machine.hpp"

#include <algorithm>

#include "gpuenv/system/system_survey.hpp"
#include "gpuenv/util/yaml_document.hpp"

namespace gpuenv::build {

std::optional<std::string> package_cuda_compiler_version(const std::filesystem::path& package_root) {
  util::YamlLimits limits;
  limits.max_file_bytes = 1 << 20;  // a variant is a few lines
  auto variant = util::read_yaml_file(package_root / "info/recipe/variant_config.yaml", nullptr, limits);
  if (!variant || !variant->IsMap()) return std::nullopt;
  const auto version = (*variant)["cuda_compiler_version"];
  if (!version || !version.IsScalar()) return std::nullopt;
  return version.Scalar();
}

std::optional<std::string> variant_cuda_compiler_version(const recipe::RenderedVariant& variant) {
  const auto value = variant.variant.find("cuda_compiler_version");
  if (value == variant.variant.end()) return std::nullopt;
  return value->second.display();
}

std::optional<std::string> cuda_override_without_driver(const std::optional<std::string>& cuda_compiler_version,
                                              const environment::Settings& settings) {
  if (!cuda_compiler_version) return std::nullopt;
  const std::string& cuda = *cuda_compiler_version;
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
