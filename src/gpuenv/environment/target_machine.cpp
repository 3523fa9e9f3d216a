#include "gpuenv/environment/target_machine.hpp"

#include <memory>

namespace gpuenv::environment {

system::MachineDescription machine_for(const system::SystemSurvey& survey, specs::Platform target) {
  auto machine = system::MachineDescription::of_survey(survey, std::string(target.str()));
  if (target == specs::Platform::current()) return machine;
  system::VirtualPackageInputs inputs;
  inputs.target = target;
  inputs.target_is_native = false;
  machine.virtual_packages = system::compute_virtual_packages(inputs, survey.overrides).packages;
  machine.cuda.reset();
  return machine;
}

solver::MachineFacts solver_facts(const system::MachineDescription& machine) {
  solver::MachineFacts facts;
  facts.platform = machine.platform;
  facts.virtual_packages = machine.virtual_packages;
  // The solve may outlive the caller's description (it is a value), so the
  // callback holds its own copy.
  auto described = std::make_shared<const system::MachineDescription>(machine);
  facts.explain_virtual_requirement = [described](const solver::VirtualRequirementFailure& failure) {
    return system::explain_virtual_requirement(
        *described, {failure.requirer, failure.dependency,
                     failure.is_constraint ? system::VirtualRequirementKind::constrains
                                           : system::VirtualRequirementKind::needs,
                     failure.other_builds_fit});
  };
  return facts;
}

}  // namespace gpuenv::environment
