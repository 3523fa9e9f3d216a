#include "gpuenv/environment/conditional_dependencies.hpp"

#include <algorithm>

#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::environment {
namespace {

// Where the machine's __cuda came from, for the fact about it.
std::string cuda_source(const system::MachineDescription& machine) {
  if (machine.cuda_override) {
    return machine.cuda_override->empty() ? "CONDA_OVERRIDE_CUDA is set empty"
                                          : "CONDA_OVERRIDE_CUDA=" + *machine.cuda_override;
  }
  if (!machine.cuda) return "";
  if (system::driver_usable(*machine.cuda)) {
    return machine.cuda->driver_release.empty() ? "the detected driver"
                                                : "driver " + machine.cuda->driver_release;
  }
  return machine.cuda->message.empty() ? "no usable NVIDIA driver was found" : machine.cuda->message;
}

std::string with_source(std::string fact, const std::string& source) {
  return source.empty() ? fact : fact + " (" + source + ")";
}

// The spec as the condition wrote it (`python>=3.10`), not conda's `python[version='>=3.10']`.
std::string written(const specs::MatchSpec& spec) { return spec.original().empty() ? spec.str() : spec.original(); }

bool virtual_leaf_holds(const specs::MatchSpec& spec, const std::string& name,
                        const system::MachineDescription& machine, std::vector<std::string>& facts) {
  const std::string source = name == "__cuda" || name == "__cuda_arch" ? cuda_source(machine) : "";
  const auto found = std::find_if(machine.virtual_packages.begin(), machine.virtual_packages.end(),
                                  [&](const specs::VirtualPackage& package) { return package.name == name; });
  if (found == machine.virtual_packages.end()) {
    facts.push_back(with_source("this machine has no " + name, source));
    return false;
  }
  specs::PackageRecord record;
  record.name = found->name;
  record.set_version(found->version);
  record.build = found->build;
  const bool held = spec.matches(record);
  facts.push_back(with_source(name + " " + found->version + (held ? " is on this machine" : " is on this machine, not " + written(spec)),
                              source));
  return held;
}

bool package_leaf_holds(const specs::MatchSpec& spec, const std::string& name,
                        const std::vector<specs::PackageRecord>& environment, std::vector<std::string>& facts) {
  const auto named = std::find_if(environment.begin(), environment.end(),
                                  [&](const specs::PackageRecord& record) { return record.name == name; });
  if (named == environment.end()) {
    facts.push_back(name + " is not in the environment");
    return false;
  }
  const bool held = spec.matches(*named);
  facts.push_back(name + " " + named->version + (held ? " is in the environment" : " is in the environment, not " + written(spec)));
  return held;
}

}  // namespace

std::string ConditionOutcome::line() const {
  std::string out = requirer + ": " + dependency + (held ? " applies" : " does not apply") + " (when " + condition +
                    (held ? " held: " : " did not hold: ");
  for (std::size_t i = 0; i < facts.size(); ++i) out += (i > 0 ? "; " : "") + facts[i];
  return out + ")";
}

bool condition_holds(const specs::Condition& condition, const std::vector<specs::PackageRecord>& environment,
                     const system::MachineDescription& machine, std::vector<std::string>& facts) {
  return condition.holds([&](const specs::MatchSpec& spec) {
    const std::string name = spec.name().str();
    return name.starts_with("__") ? virtual_leaf_holds(spec, name, machine, facts)
                                  : package_leaf_holds(spec, name, environment, facts);
  });
}

std::vector<ConditionOutcome> condition_outcomes(const std::vector<specs::PackageRecord>& linked,
                                                 const std::vector<specs::MatchSpec>& request,
                                                 const std::vector<specs::PackageRecord>& environment,
                                                 const system::MachineDescription& machine) {
  std::vector<ConditionOutcome> outcomes;
  const auto add = [&](std::string requirer, const std::string& text) {
    if (text.find("when") == std::string::npos) return;  // the common case, without parsing
    try {
      const auto spec = specs::MatchSpec::parse(text);
      if (spec.when().empty()) return;
      ConditionOutcome outcome;
      outcome.requirer = std::move(requirer);
      outcome.dependency = text;
      outcome.condition = std::string(spec.when());
      outcome.held = condition_holds(specs::Condition::parse(spec.when()), environment, machine, outcome.facts);
      outcomes.push_back(std::move(outcome));
    } catch (const specs::SpecError&) {
      // The solver refused it already (an unreadable entry keeps its record out).
    }
  };
  for (const auto& spec : request) add("the request", spec.original().empty() ? spec.str() : spec.original());
  for (const auto& record : linked) {
    for (const auto& dependency : record.depends) add(record.name + " " + record.version + " " + record.build, dependency);
  }
  return outcomes;
}

std::string MachineConditionOutcome::line() const {
  std::string out = condition + (held ? ": holds (" : ": does not hold (");
  for (std::size_t i = 0; i < facts.size(); ++i) out += (i > 0 ? "; " : "") + facts[i];
  return out + ")";
}

std::expected<std::vector<MachineConditionOutcome>, std::string> decide_conditions_on_machine(
    const std::vector<std::string>& conditions, const system::MachineDescription& machine) {
  std::vector<MachineConditionOutcome> decided;
  for (const auto& text : conditions) {
    try {
      const auto condition = specs::Condition::parse(text);
      MachineConditionOutcome outcome{condition.str(), false, {}};
      outcome.held = condition_holds(condition, {}, machine, outcome.facts);
      for (auto& fact : outcome.facts) {
        if (fact.ends_with(" is not in the environment")) fact += " (a package is decided by a solve, not the machine)";
      }
      decided.push_back(std::move(outcome));
    } catch (const specs::SpecError& error) {
      return std::unexpected(std::string(error.what()));
    }
  }
  return decided;
}

}  // namespace gpuenv::environment
