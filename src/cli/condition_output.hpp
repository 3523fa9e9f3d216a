// CEP 43 / CEP 48 facts of a plan for people and for --json: which
// conditional dependencies applied and why, and the channels' messages.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "gpuenv/environment/channel_loading.hpp"
#include "gpuenv/environment/conditional_dependencies.hpp"

namespace gpuenv::cli {

// One line each on stdout, under "Conditional dependencies:"; nothing when none.
void print_conditions(const std::vector<environment::ConditionOutcome>& outcomes);

// Adds "conditions" (when any) and "channel_messages" (when any) to a plan's
// --json output; docs/json-output.md has the shapes.
void add_condition_json(nlohmann::ordered_json& output, const std::vector<environment::ConditionOutcome>& outcomes,
                        const solver::ChannelLoadResult& loaded);

nlohmann::ordered_json condition_json(const environment::ConditionOutcome& outcome);

}  // namespace gpuenv::cli
