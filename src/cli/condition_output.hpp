// CEP 43 facts of a plan for people: which conditional dependencies
// applied and why (--json: environment/change_report.hpp).
#pragma once

#include <vector>

#include "gpuenv/environment/conditional_dependencies.hpp"

namespace gpuenv::cli {

// One line each on stdout, under "Conditional dependencies:"; nothing when none.
void print_conditions(const std::vector<environment::ConditionOutcome>& outcomes);

}  // namespace gpuenv::cli
