// Which CEP 43 conditions held in a solved environment, and why: for every
// conditional dependency of the packages a change links (and every
// conditional request), whether its `when` held, in words a user can act
// on. The solver decided them (solver/conditional_dependency.hpp); this
// says the same thing back from the result, one line each, for `create`,
// `install` and `gpuenv cuda --when`.
#pragma once

#include <expected>
#include <string>
#include <vector>

#include "gpuenv/specs/condition.hpp"
#include "gpuenv/specs/package_record.hpp"
#include "gpuenv/system/virtual_package_explanation.hpp"

namespace gpuenv::environment {

struct ConditionOutcome {
  std::string requirer;    // "app 1.0 0", or "the request"
  std::string dependency;  // as written: `cuda-cudart[when="__cuda>=12"]`
  std::string condition;   // canonical (`__cuda>=12`)
  bool held = false;
  // One fact per match spec of the condition ("__cuda 12.4 is on this
  // machine (CONDA_OVERRIDE_CUDA=12.4)", "python 3.12 is in the environment").
  std::vector<std::string> facts;

  // "app 1.0 0: cuda-cudart when __cuda>=12 held: __cuda 12.4 is on this machine (...)".
  std::string line() const;
};

// Whether `condition` holds for `environment` (the packages after the
// change) on `machine`: a virtual package is the machine's, any other
// package the environment's. `facts` gets one sentence per match spec.
bool condition_holds(const specs::Condition& condition, const std::vector<specs::PackageRecord>& environment,
                     const system::MachineDescription& machine, std::vector<std::string>& facts);

// The outcomes for the conditional dependencies of `linked` and of the
// request's conditional specs, evaluated against `environment`.
std::vector<ConditionOutcome> condition_outcomes(const std::vector<specs::PackageRecord>& linked,
                                                 const std::vector<specs::MatchSpec>& request,
                                                 const std::vector<specs::PackageRecord>& environment,
                                                 const system::MachineDescription& machine);

// A condition decided on the machine alone (`gpuenv cuda --when`): only
// virtual packages are the machine's; a package named in a condition is
// decided by a solve, so here it reads as absent and its fact says so.
struct MachineConditionOutcome {
  std::string condition;  // canonical (`__cuda>=12`)
  bool held = false;
  std::vector<std::string> facts;

  // "__cuda>=12: holds (__cuda 12.4 is on this machine (...))".
  std::string line() const;
};

// Each of `conditions` (CEP 43 text) decided on `machine`, in order; the
// error is the first condition's parse error.
std::expected<std::vector<MachineConditionOutcome>, std::string> decide_conditions_on_machine(
    const std::vector<std::string>& conditions, const system::MachineDescription& machine);

}  // namespace gpuenv::environment
