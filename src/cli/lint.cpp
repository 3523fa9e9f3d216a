// `gpuenv lint RECIPE...`: what maintainers get wrong in a recipe, each with
// the fix (the recipe module's lint does the checking; docs/recipes.md lists
// the checks). Exit 0 without error findings (warnings allowed), 1 with any,
// 2 on a usage mistake. Text or --json (docs/json-output.md).
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "error_output.hpp"
#include "gpuenv/builder/recipe_order.hpp"
#include "gpuenv/recipe/lint.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::cli {
namespace {

namespace rc = recipe;

struct LintArguments {
  std::vector<std::string> recipes;
  std::vector<std::string> overrides;
  std::vector<std::string> variant_files;
  std::string target_platform;
  bool json = false;
};

std::string location(const rc::LintFinding& finding) {
  std::string text = finding.file;
  if (finding.position.line > 0) {
    text += ":" + std::to_string(finding.position.line);
    if (finding.position.column > 0) text += ":" + std::to_string(finding.position.column);
  }
  return text;
}

const char* plural(std::size_t count, const char* word_one, const char* word_many) {
  return count == 1 ? word_one : word_many;
}

void print_linted(const std::vector<rc::LintedRecipe>& linted) {
  for (const auto& each : linted) {
    if (each.findings.empty()) fmt::print("{}: no findings\n", each.recipe);
    for (const auto& finding : each.findings) {
      fmt::print("{}: {}[{}] {}\n    fix: {}\n", location(finding), rc::severity_name(finding.severity), finding.check,
                 finding.message, finding.fix);
    }
  }
  const auto total = rc::total_lint_counts(linted);
  fmt::print("{} {}, {} {}\n", total.errors, plural(total.errors, "error", "errors"), total.warnings,
             plural(total.warnings, "warning", "warnings"));
}

int run_lint(const LintArguments& arguments) {
  rc::LintRequest request;
  request.render =
      rc::render_request_on_this_machine(arguments.overrides, arguments.variant_files, arguments.target_platform);
  std::vector<rc::LintedRecipe> linted;
  for (const auto& argument : arguments.recipes) {
    for (const auto& [name, file] : build::recipes_named_by(argument)) {
      auto findings = rc::lint_recipe_file(file, request);
      // Only a malformed --variant fails lint itself: the command line's mistake.
      if (!findings) return report_usage_error(findings.error().message, arguments.json);
      linted.push_back({name, std::move(*findings)});
    }
  }
  if (arguments.json) {
    fmt::print("{}\n", rc::lint_report_json(request.render.target_platform, linted));
  } else {
    print_linted(linted);
  }
  for (const auto& each : linted) {
    if (rc::has_lint_errors(each.findings)) return 1;
  }
  return 0;
}

}  // namespace

void add_lint_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<LintArguments>();
  auto* sub = app.add_subcommand("lint", "Check recipe.yaml files for what maintainers get wrong, with the fix");
  sub->add_option("recipes", arguments->recipes, "The recipe.yaml files, directories holding one, or directories of recipes (a variants.yaml next "
                  "to each is read first)")
      ->required();
  sub->add_option("--variant", arguments->overrides, "Set a variant key: KEY=VALUE or KEY=V1,V2 (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("-m,--variant-config", arguments->variant_files,
                  "A variants.yaml or conda_build_config.yaml (repeatable; later files win)")
      ->allow_extra_args(false);
  sub->add_option("--target-platform", arguments->target_platform,
                  "The platform the builds are checked for (default: this one; selectors are checked on all)");
  sub->add_flag("--json", arguments->json, "Print JSON");
  sub->callback([&run, arguments] { run = [arguments] { return run_lint(*arguments); }; });
}

}  // namespace gpuenv::cli
