#include "gpuenv/builder/build_report.hpp"

#include <nlohmann/json.hpp>

namespace gpuenv::build {
namespace {

using json = nlohmann::ordered_json;

json environment_json(const PlannedEnvironment& environment) {
  json packages = json::array();
  for (const auto& record : environment.packages) {
    packages.push_back({{"name", record.name},
                        {"version", record.version},
                        {"build", record.build},
                        {"channel", record.channel},
                        {"subdir", record.subdir}});
  }
  return {{"platform", environment.platform},
          {"specs", environment.specs},
          {"machine_compilers", environment.machine_compilers},
          {"packages", std::move(packages)}};
}

json recipe_plan_json(const std::filesystem::path& recipe_file, const RecipePlan& plan) {
  json variants = json::array();
  for (const auto& variant : plan.variants) {
    json keys = json::object();
    for (const auto& [key, value] : variant.variant) keys[key] = value.display();
    json entry{{"name", variant.name},
               {"version", variant.version},
               {"build_string", variant.build_string},
               {"subdir", variant.subdir},
               {"variant", std::move(keys)},
               {"solved", variant.solved()},
               {"build", environment_json(variant.build)},
               {"host", environment_json(variant.host)}};
    if (!variant.solved()) {
      entry["failed_environment"] = variant.failed_environment;
      entry["error"] = variant.problem;
      entry["explanation"] = variant.explanation;
    }
    variants.push_back(std::move(entry));
  }
  return {{"recipe", recipe_file.string()}, {"skipped", plan.skipped}, {"variants", std::move(variants)}};
}

json built_json(const BuiltVariant& each) {
  const auto& package = each.package;
  return {{"name", each.name},
          {"version", each.version},
          {"build_string", each.build_string},
          {"package", package.package.string()},
          {"log", package.log_file.string()},
          {"files", package.files},
          {"tests", package.tests},
          {"cuda_check", package.cuda_check.empty() ? json(nullptr) : json(package.cuda_check)},
          {"machine_compilers", package.used_machine_compilers},
          {"seconds", package.seconds},
          {"script_seconds", package.script_seconds},
          {"elf_seconds", package.elf_seconds}};
}

// {"success", ["error"], key: list}: the shape of both reports.
std::string report(const std::optional<std::string>& error, bool success, const char* key, json list) {
  json document{{"success", !error && success}};
  if (error) document["error"] = *error;
  document[key] = std::move(list);
  return document.dump(2);
}

}  // namespace

std::string plan_report_json(const std::vector<PlannedRecipe>& planned, const std::optional<std::string>& error) {
  json recipes = json::array();
  bool solved = true;
  for (const auto& each : planned) {
    recipes.push_back(recipe_plan_json(each.recipe_file, each.plan));
    solved = solved && each.plan.solved();
  }
  return report(error, solved, "recipes", std::move(recipes));
}

std::string build_report_json(const std::vector<BuiltVariant>& built, const std::optional<std::string>& error) {
  json packages = json::array();
  for (const auto& each : built) packages.push_back(built_json(each));
  return report(error, true, "packages", std::move(packages));
}

std::string build_report_json(const std::vector<BuiltVariant>& built, const std::vector<SkippedVariant>& skipped,
                              const std::optional<std::string>& error) {
  auto document = json::parse(build_report_json(built, error));
  json entries = json::array();
  for (const auto& each : skipped) {
    entries.push_back({{"name", each.name},
                       {"version", each.version},
                       {"build_string", each.build_string},
                       {"package", each.package.string()}});
  }
  document["skipped"] = std::move(entries);
  return document.dump(2);
}

}  // namespace gpuenv::build
