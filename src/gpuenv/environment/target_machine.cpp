#include "gpuenv/environment/target_machine.hpp"

namespace gpuenv::environment {

solver::MachineFacts machine_facts_for(const system::SystemSurvey& survey, specs::Platform target) {
  auto facts = solver::machine_facts_from(survey, std::string(target.str()));
  if (target == specs::Platform::current()) return facts;
  system::VirtualPackageInputs inputs;
  inputs.target = target;
  inputs.target_is_native = false;
  facts.virtual_packages = system::compute_virtual_packages(inputs, survey.overrides).packages;
  facts.cuda.reset();
  return facts;
}

}  // namespace gpuenv::environment
