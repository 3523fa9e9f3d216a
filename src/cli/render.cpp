// `gpuenv render RECIPE`: every variant of a recipe, rendered as
// rattler-build renders it (the recipe module does the work): the variant
// used, the build string and each output's requirements (text or --json,
// docs/json-output.md).
#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "error_output.hpp"
#include "gpuenv/recipe/render.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::cli {
namespace {

namespace rc = recipe;

struct RenderArguments {
  std::string recipe;
  std::vector<std::string> overrides;
  std::vector<std::string> variant_files;
  std::string target_platform;
  bool json = false;
};

void print_rendered(const rc::RenderedRecipe& rendered) {
  if (rendered.variants.empty()) fmt::print("no variant to build\n");
  for (const auto& each : rendered.variants) {
    fmt::print("{} {} {}\n  variant:\n", each.output_name, each.output_version, each.build_string);
    for (const auto& [key, value] : each.variant) fmt::print("    {}: {}\n", key, value.display());
    for (const auto& [name, dependencies] : rc::requirement_sections(each.requirements())) {
      if (dependencies->empty()) continue;
      fmt::print("  {}:\n", name);
      for (const auto& dependency : *dependencies) fmt::print("    - {}\n", rc::dependency_text(dependency));
    }
  }
}

int run_render(const RenderArguments& arguments) {
  const auto request =
      rc::render_request_on_this_machine(arguments.overrides, arguments.variant_files, arguments.target_platform);
  auto rendered = rc::render_recipe_file(rc::recipe_file_path(arguments.recipe), request);
  if (!rendered) {
    // A malformed --variant is the command line's mistake, not the recipe's.
    if (rendered.error().file == "--variant") return report_usage_error(rendered.error().message, arguments.json);
    return report_error(environment::make_error(environment::ErrorKind::configuration, rendered.error().message),
                        arguments.json);
  }
  if (arguments.json) {
    fmt::print("{}\n", rc::rendered_recipe_json(arguments.recipe, request.target_platform, *rendered));
  } else {
    print_rendered(*rendered);
  }
  return 0;
}

}  // namespace

void add_render_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<RenderArguments>();
  auto* sub = app.add_subcommand("render", "Render every variant of a recipe.yaml: variant, build string, requirements");
  sub->add_option("recipe", arguments->recipe, "The recipe.yaml, or a directory holding one (a variants.yaml next to it is read first)")
      ->required();
  sub->add_option("--variant", arguments->overrides, "Set a variant key: KEY=VALUE or KEY=V1,V2 (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("-m,--variant-config", arguments->variant_files,
                  "A variants.yaml or conda_build_config.yaml (repeatable; later files win)")
      ->allow_extra_args(false);
  sub->add_option("--target-platform", arguments->target_platform, "The platform to render for (default: this one)");
  sub->add_flag("--json", arguments->json, "Print JSON");
  sub->callback([&run, arguments] { run = [arguments] { return run_render(*arguments); }; });
}

}  // namespace gpuenv::cli
