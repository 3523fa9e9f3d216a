#include "gpuenv/builder/build_plan.hpp"

#include <algorithm>

#include "gpuenv/builder/build_variant.hpp"
#include "gpuenv/builder/compilers.hpp"
#include "gpuenv/builder/resolved_requirements.hpp"
#include "gpuenv/environment/plan.hpp"
#include "gpuenv/specs/platform.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

struct SolveFailure {
  std::string message;
  std::vector<std::string> explanation;
};

// One environment solved as `gpuenv create --dry-run` solves it. The prefix
// is only a name here: a dry-run plan neither reads nor writes it.
std::expected<std::vector<specs::PackageRecord>, SolveFailure> solve_environment(
    const std::vector<std::string>& specs, const environment::Settings& settings, const std::string& role,
    environment::Reporter& reporter) {
  if (specs.empty()) return std::vector<specs::PackageRecord>{};
  environment::ChangeRequest request;
  request.kind = environment::ChangeKind::create;
  request.prefix = fs::path("/") / "gpuenv-build-dry-run" / role;
  request.specs = specs;
  request.dry_run = true;
  auto plan = environment::plan(settings, request, reporter);
  if (!plan) {
    SolveFailure failure{"cannot solve the " + role + " environment: " + plan.error().message, {}};
    if (plan.error().unsolvable) failure.explanation = plan.error().unsolvable->lines();
    return std::unexpected(std::move(failure));
  }
  return plan->solution.link;
}

environment::Settings settings_for(const environment::Settings& settings, const std::string& platform) {
  environment::Settings copy = settings;
  if (const auto parsed = specs::Platform::parse(platform)) copy.platform = *parsed;
  return copy;
}

void record_failure(VariantPlan& plan, const char* environment, SolveFailure failure) {
  plan.failed_environment = environment;
  plan.problem = std::move(failure.message);
  plan.explanation = std::move(failure.explanation);
}

// The build environment as build_variant creates it: the channels'
// compilers, else -- when the solve fails with them and succeeds without --
// the machine's.
void plan_build_environment(VariantPlan& plan, const std::vector<std::string>& specs,
                            const recipe::RenderedVariant& variant, const std::string& target_platform,
                            const environment::Settings& settings, environment::Reporter& reporter) {
  plan.build.specs = specs;
  auto solved = solve_environment(specs, settings, "build", reporter);
  if (solved) {
    plan.build.packages = std::move(*solved);
    return;
  }
  const auto split = split_build_requirements(specs, variant.variant, target_platform);
  if (split.compilers.empty()) {
    record_failure(plan, "build", std::move(solved.error()));
    return;
  }
  auto without = solve_environment(split.others, settings, "build", reporter);
  if (!without) {
    record_failure(plan, "build", std::move(without.error()));
    return;
  }
  plan.build.specs = split.others;
  plan.build.packages = std::move(*without);
  plan.build.machine_compilers = true;
}

std::expected<VariantPlan, BuildError> plan_variant(const recipe::RenderedVariant& variant,
                                                    const RecipePlanRequest& request,
                                                    environment::Reporter& reporter) {
  const auto& build = output_build(variant);
  const auto& render = request.render;
  const auto platform_value = variant.variant.find("target_platform");
  const std::string target_platform =
      platform_value == variant.variant.end() ? render.target_platform : platform_value->second.display();
  // noarch packages build for the machine they build on (as build_variant).
  const std::string host_platform = build.noarch ? render.build_platform : target_platform;

  VariantPlan plan;
  plan.name = variant.output_name;
  plan.version = variant.output_version;
  plan.build_string = variant.build_string;
  plan.subdir = build.noarch ? "noarch" : target_platform;
  plan.variant = variant.variant;
  plan.build.platform = render.build_platform;
  plan.host.platform = host_platform;

  const auto& requirements = variant.requirements();
  auto build_specs = environment_specs(requirements.build, variant, "build");
  if (!build_specs) return std::unexpected(build_specs.error());
  auto host_specs = environment_specs(requirements.host, variant, "host");
  if (!host_specs) return std::unexpected(host_specs.error());

  plan_build_environment(plan, *build_specs, variant, target_platform,
                         settings_for(*request.settings, render.build_platform), reporter);
  if (!plan.solved()) return plan;
  plan.host.specs = *host_specs;
  auto host = solve_environment(*host_specs, settings_for(*request.settings, host_platform), "host", reporter);
  if (!host) {
    record_failure(plan, "host", std::move(host.error()));
    return plan;
  }
  plan.host.packages = std::move(*host);
  return plan;
}

}  // namespace

bool RecipePlan::solved() const {
  return std::all_of(variants.begin(), variants.end(), [](const VariantPlan& each) { return each.solved(); });
}

std::expected<RecipePlan, BuildError> plan_recipe(const fs::path& recipe_file, const RecipePlanRequest& request,
                                                  environment::Reporter& reporter) {
  auto rendered = recipe::render_recipe_file(recipe_file, request.render);
  if (!rendered) {
    const bool override = rendered.error().file == "--variant";
    return std::unexpected(BuildError{override ? BuildErrorKind::variant_override : BuildErrorKind::recipe,
                                      rendered.error().message});
  }
  RecipePlan plan;
  for (const auto& variant : rendered->variants) {
    if (output_build(variant).skip) {
      ++plan.skipped;
      continue;
    }
    auto planned = plan_variant(variant, request, reporter);
    if (!planned) return std::unexpected(std::move(planned.error()));
    plan.variants.push_back(std::move(*planned));
  }
  return plan;
}

}  // namespace gpuenv::build
