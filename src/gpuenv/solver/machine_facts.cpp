#include "gpuenv/solver/machine_facts.hpp"

#include <fmt/format.h>

#include "gpuenv/solver/explanation.hpp"

namespace gpuenv::solver {

std::optional<std::string> MachineFacts::virtual_version(std::string_view name) const {
  for (const auto& package : virtual_packages) {
    if (package.name == name) return package.version;
  }
  return std::nullopt;
}

std::string virtual_requirement_text(const MachineFacts& machine, const VirtualRequirementFailure& failure) {
  if (machine.explain_virtual_requirement) return machine.explain_virtual_requirement(failure);
  const char* verb = failure.is_constraint ? "constrains" : "needs";
  const auto name = failure.dependency.substr(0, failure.dependency.find(' '));
  if (const auto version = machine.virtual_version(name)) {
    return fmt::format("{} {} {} but the machine solved for has {} {}", failure.requirer, verb, failure.dependency,
                       name, *version);
  }
  const std::string platform = machine.platform.empty() ? std::string("the machine solved for") : machine.platform;
  return fmt::format("{} {} {}, which {} does not have", failure.requirer, verb, failure.dependency, platform);
}

}  // namespace gpuenv::solver
