#include "build_plan_output.hpp"

#include <fmt/core.h>

#include <string>

namespace gpuenv::cli {

namespace {

using json = nlohmann::ordered_json;

std::string variant_line(const recipe::Variant& variant) {
  std::string line;
  for (const auto& [key, value] : variant) line += (line.empty() ? "" : ", ") + key + "=" + value.display();
  return line;
}

void print_environment(const char* role, const build::PlannedEnvironment& environment) {
  if (environment.specs.empty() && !environment.machine_compilers) return;
  fmt::print("  {} environment ({}): {} package{}\n", role, environment.platform, environment.packages.size(),
             environment.packages.size() == 1 ? "" : "s");
  if (environment.machine_compilers) {
    fmt::print("    (the channels have no package for the compilers: the build would use this machine's)\n");
  }
  for (const auto& record : environment.packages) {
    fmt::print("    {} {} {}\n", record.name, record.version, record.build);
  }
}

json environment_json(const build::PlannedEnvironment& environment) {
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

}  // namespace

void print_recipe_plan(const std::filesystem::path& recipe_file, const build::RecipePlan& plan) {
  for (const auto& variant : plan.variants) {
    fmt::print("{} {} {} ({})\n", variant.name, variant.version, variant.build_string, variant.subdir);
    fmt::print("  variant: {}\n", variant_line(variant.variant));
    print_environment("build", variant.build);
    if (!variant.solved()) {
      fmt::print("  {}\n", variant.problem);
      for (const auto& line : variant.explanation) fmt::print("    {}\n", line);
      continue;
    }
    print_environment("host", variant.host);
  }
  std::size_t unsolved = 0;
  for (const auto& variant : plan.variants) unsolved += variant.solved() ? 0 : 1;
  fmt::print("{}: {} variant{} planned ({} skipped by the recipe){}\n", recipe_file.string(), plan.variants.size(),
             plan.variants.size() == 1 ? "" : "s", plan.skipped,
             unsolved == 0 ? ", every environment solves" : fmt::format(", {} cannot be solved", unsolved));
}

json recipe_plan_json(const std::filesystem::path& recipe_file, const build::RecipePlan& plan) {
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

}  // namespace gpuenv::cli
