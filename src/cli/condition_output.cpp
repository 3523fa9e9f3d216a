#include "condition_output.hpp"

#include <fmt/format.h>

namespace gpuenv::cli {

void print_conditions(const std::vector<environment::ConditionOutcome>& outcomes) {
  if (outcomes.empty()) return;
  fmt::print("Conditional dependencies:\n");
  for (const auto& outcome : outcomes) fmt::print("  {}\n", outcome.line());
}

}  // namespace gpuenv::cli
