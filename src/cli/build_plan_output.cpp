#include "build_plan_output.hpp"

#include <fmt/core.h>

#include <string>

namespace gpuenv::cli {

namespace {

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

}  // namespace gpuenv::cli
