// The machine a solve is for: this one, or another platform named with
// --platform / --subdir / CONDA_SUBDIR.
#pragma once

#include "gpuenv/solver/machine_facts.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/system/system_survey.hpp"
#include "gpuenv/system/virtual_package_explanation.hpp"

namespace gpuenv::environment {

// For the platform gpuenv runs on: this machine's virtual packages, as
// surveyed. For another platform: what CEP 30 gives a machine that cannot
// be measured (__unix, __linux=0, __glibc=2.17, __osx=0, __win=0,
// __archspec=0=<arch>), with CONDA_OVERRIDE_* applied, and __cuda and
// __cuda_arch only from CONDA_OVERRIDE_CUDA*: this machine's driver says
// nothing about the other one, so failures do not name it either.
system::MachineDescription machine_for(const system::SystemSurvey& survey, specs::Platform target);

// What the solver takes: the virtual packages, and failures on them worded
// with what detection found (system::explain_virtual_requirement).
solver::MachineFacts solver_facts(const system::MachineDescription& machine);

}  // namespace gpuenv::environment
