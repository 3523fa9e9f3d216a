#include "condition_output.hpp"

#include <fmt/format.h>

namespace gpuenv::cli {

void print_conditions(const std::vector<environment::ConditionOutcome>& outcomes) {
  if (outcomes.empty()) return;
  fmt::print("Conditional dependencies:\n");
  for (const auto& outcome : outcomes) fmt::print("  {}\n", outcome.line());
}

nlohmann::ordered_json condition_json(const environment::ConditionOutcome& outcome) {
  return {{"requirer", outcome.requirer}, {"dependency", outcome.dependency}, {"when", outcome.condition},
          {"held", outcome.held},         {"facts", outcome.facts},           {"line", outcome.line()}};
}

void add_condition_json(nlohmann::ordered_json& output, const std::vector<environment::ConditionOutcome>& outcomes,
                        const solver::ChannelLoadResult& loaded) {
  if (!outcomes.empty()) {
    auto& list = output["conditions"] = nlohmann::ordered_json::array();
    for (const auto& outcome : outcomes) list.push_back(condition_json(outcome));
  }
  const auto messages = environment::channel_messages(loaded);
  if (!messages.empty()) {
    auto& list = output["channel_messages"] = nlohmann::ordered_json::array();
    for (const auto& message : messages) {
      list.push_back({{"channel", message.channel},
                      {"subdir", message.subdir},
                      {"revision", message.revision},
                      {"message", message.message}});
    }
  }
}

}  // namespace gpuenv::cli
