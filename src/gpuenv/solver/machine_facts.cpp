#include "gpuenv/solver/machine_facts.hpp"

namespace gpuenv::solver {

std::optional<std::string> MachineFacts::virtual_version(std::string_view name) const {
  for (const auto& package : virtual_packages) {
    if (package.name == name) return package.version;
  }
  return std::nullopt;
}

MachineFacts machine_facts_from(const system::SystemSurvey& survey, std::string platform) {
  MachineFacts facts;
  facts.platform = std::move(platform);
  facts.virtual_packages = survey.virtual_packages.packages;
  facts.cuda_override = survey.overrides.cuda;
  facts.cuda_arch_override = survey.overrides.cuda_arch;
  if (survey.cuda) facts.cuda = survey.cuda->report;
  return facts;
}

}  // namespace gpuenv::solver
