#include "gpuenv/environment/change_report.hpp"

#include <nlohmann/json.hpp>

#include "gpuenv/environment/channel_loading.hpp"
#include "gpuenv/environment/channel_names.hpp"
#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::environment {
namespace {

using json = nlohmann::ordered_json;

json action_json(const specs::PackageRecord& record, const solver::ChannelLoadResult& loaded) {
  const std::string base_url = specs::mask_credentials(record.channel);
  return json{
      {"name", record.name},
      {"version", record.version},
      {"build", record.build},
      {"build_number", record.build_number},
      {"channel", specs::mask_credentials(channel_name_of(record, loaded))},
      {"subdir", record.subdir},
      {"fn", record.fn},
      {"url", specs::mask_credentials(record.url)},
      {"sha256", record.sha256},
      // conda's own keys for the same facts, for tools that read conda's output.
      {"base_url", base_url},
      {"build_string", record.build},
      {"dist_name", record.dist_str()},
      {"platform", record.subdir},
  };
}

json plan_json(const Plan& plan, bool dry_run) {
  json link = json::array();
  for (const auto& record : plan.solution.link) link.push_back(action_json(record, plan.loaded));
  json unlink = json::array();
  for (const auto& record : plan.solution.unlink) unlink.push_back(action_json(record, plan.loaded));
  json output{{"success", true}};
  if (dry_run) output["dry_run"] = true;
  output["prefix"] = plan.prefix.string();
  output["actions"] = json{{"LINK", link}, {"UNLINK", unlink}, {"PREFIX", plan.prefix.string()}};

  if (!plan.conditions.empty()) {
    auto& list = output["conditions"] = json::array();
    for (const auto& outcome : plan.conditions) {
      list.push_back({{"requirer", outcome.requirer}, {"dependency", outcome.dependency}, {"when", outcome.condition},
                      {"held", outcome.held},         {"facts", outcome.facts},           {"line", outcome.line()}});
    }
  }
  const auto messages = channel_messages(plan.loaded);
  if (!messages.empty()) {
    auto& list = output["channel_messages"] = json::array();
    for (const auto& message : messages) {
      list.push_back({{"channel", message.channel},
                      {"subdir", message.subdir},
                      {"revision", message.revision},
                      {"message", message.message}});
    }
  }
  return output;
}

}  // namespace

std::string nothing_to_do_json(const Plan& plan) {
  return json{{"success", true}, {"message", plan.nothing_to_do}, {"prefix", plan.prefix.string()}}.dump(2);
}

std::string dry_run_json(const Plan& plan) { return plan_json(plan, true).dump(2); }

std::string applied_change_json(const Plan& plan, const ApplyResult& applied) {
  auto output = plan_json(plan, false);
  const auto& result = applied.transaction;
  auto clobbers = json::array();
  for (const auto& clobber : result.clobbers) {
    clobbers.push_back({{"path", clobber.path},
                        {"winner", clobber.winner},
                        {"previous_owner", clobber.previous_owner.empty() ? json() : json(clobber.previous_owner)}});
  }
  output["clobbers"] = std::move(clobbers);
  output["warnings"] = result.warnings;
  output["messages"] = result.script_messages;
  output["downloaded_bytes"] = applied.downloaded_bytes;
  output["seconds"] = applied.seconds;
  return output.dump(2);
}

}  // namespace gpuenv::environment
