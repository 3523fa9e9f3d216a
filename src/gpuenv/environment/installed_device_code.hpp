// After `create`, `install` and `update`: the device-code check over the
// packages the transaction just linked, against the GPUs detected while
// planning, as one warning line per kind of problem (DESIGN.md: the library
// says what, the CLI prints it).
#pragma once

#include <string>
#include <vector>

#include "gpuenv/environment/apply.hpp"
#include "gpuenv/environment/plan.hpp"
#include "gpuenv/environment/settings.hpp"

namespace gpuenv::environment {

// Empty when the setting gpuenv_check_device_code is false, for `remove`,
// when no GPU was detected (CONDA_OVERRIDE_CUDA decides, no driver), and when
// everything just installed can run.
std::vector<std::string> installed_device_code_warnings(const Plan& plan, const ApplyResult& applied,
                                                        const Settings& settings);

}  // namespace gpuenv::environment
