// plan_recipe(recipe_file, request, reporter): what `gpuenv build --dry-run`
// shows -- every variant of a recipe rendered as the build renders it
// (build_recipe.hpp), skipped variants left out, and its build and host
// environments solved through environment::plan, exactly the solves the
// build makes first, with nothing fetched, extracted or run. An environment
// that cannot be solved is reported per variant with the solver's
// explanation; the other variants are still planned, so one run lists every
// problem.
//
// Two things only a real build knows are left out (docs/building-packages.md):
// the run_exports of the build environment's packages (they are read from
// the extracted packages, so they do not reach the planned host
// environment), and whether this machine's compilers exist when the
// channels have none (the plan says the build would use them).
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/environment/reporter.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/recipe/render.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::build {

struct PlannedEnvironment {
  std::string platform;                       // the subdir it is solved for
  std::vector<std::string> specs;             // what is solved for, compilers included
  std::vector<specs::PackageRecord> packages;  // the solution, in link order
  // Build environment only: the channels have no package for the recipe's
  // compilers, so the build would use this machine's (and `specs` lacks them).
  bool machine_compilers = false;
};

struct VariantPlan {
  std::string name;
  std::string version;
  std::string build_string;
  std::string subdir;  // where the package would go: the target platform, or noarch
  recipe::Variant variant;
  PlannedEnvironment build, host;
  // Empty when both environments solve; else which one failed ("build" or
  // "host"), the message and, for an unsatisfiable one, the solver's
  // explanation, line by line.
  std::string failed_environment;
  std::string problem;
  std::vector<std::string> explanation;

  bool solved() const { return failed_environment.empty(); }
};

struct RecipePlanRequest {
  recipe::RenderRequest render;  // variant files, overrides, platforms, the environment
  const environment::Settings* settings = nullptr;  // channels, cache, this machine
};

struct RecipePlan {
  std::vector<VariantPlan> variants;  // in render order, skipped ones left out
  std::size_t skipped = 0;            // variants the recipe skips

  bool solved() const;
};

// Errors: the recipe or a variant file cannot be rendered (kind recipe, or
// variant_override for a malformed --variant), a pin in build or host that
// names no output. An unsolvable environment is no error: it is in the plan.
std::expected<RecipePlan, BuildError> plan_recipe(const std::filesystem::path& recipe_file,
                                                  const RecipePlanRequest& request, environment::Reporter& reporter);

}  // namespace gpuenv::build
