// `gpuenv build RECIPE...`: every variant of each recipe built into a .conda
// under --output-dir (rattler-build's flag names), the build module doing
// the work. Steps and the script's output stream to stderr (and the log);
// stdout says what was built, or with --json gives it as one document.
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "build_observer.hpp"
#include "build_plan_output.hpp"
#include "channel_setup.hpp"
#include "command.hpp"
#include "error_output.hpp"
#include "gpuenv/builder/build_plan.hpp"
#include "gpuenv/builder/build_recipe.hpp"
#include "gpuenv/builder/build_report.hpp"
#include "gpuenv/builder/package_format.hpp"
#include "gpuenv/recipe/render.hpp"
#include "gpuenv/specs/platform.hpp"

namespace gpuenv::cli {
namespace {

namespace fs = std::filesystem;

struct BuildArguments {
  std::vector<std::string> recipes;
  std::string output_dir = "output";
  std::vector<std::string> overrides;
  std::vector<std::string> variant_files;
  std::string target_platform;
  ChannelArguments channels;
  std::string package_format;
  std::optional<std::string> source;
  std::optional<std::string> source_version;
  bool json = false;
  std::string test_mode = "native";  // rattler-build's --test: skip | native | native-and-emulated
  bool no_test = false;
  bool dry_run = false;
};

fs::path recipe_file_of(const std::string& argument) {
  return fs::absolute(gpuenv::recipe::recipe_file_path(argument));
}

// Text: the error on stderr. --json: `report`, what the run got to before
// the failure, with the error.
int fail(const std::string& message, bool as_json, const std::string& report) {
  if (as_json) {
    fmt::print("{}\n", report);
    return 1;
  }
  return report_error(environment::make_error(environment::ErrorKind::configuration, message));
}

recipe::RenderRequest render_request(const BuildArguments& arguments, const std::string& target_platform) {
  return recipe::render_request_on_this_machine(arguments.overrides, arguments.variant_files, target_platform);
}

// --dry-run: the plan of every recipe; exit 1 when an environment of some
// variant cannot be solved (each is explained), so CI can gate on it.
int run_dry_run(const BuildArguments& arguments, const environment::Settings& settings,
                const std::string& target_platform) {
  CliBuildObserver observer(arguments.json);
  std::vector<build::PlannedRecipe> planned;
  for (const auto& argument : arguments.recipes) {
    const auto recipe_file = recipe_file_of(argument);
    build::RecipePlanRequest request;
    request.render = render_request(arguments, target_platform);
    request.settings = &settings;
    auto plan = build::plan_recipe(recipe_file, request, observer);
    if (!plan) {
      const auto& message = plan.error().message;
      if (plan.error().kind == build::BuildErrorKind::variant_override) {
        return report_usage_error(message, arguments.json);
      }
      return fail(message, arguments.json, arguments.json ? build::plan_report_json(planned, message) : "");
    }
    if (!arguments.json) print_recipe_plan(recipe_file, *plan);
    planned.push_back({recipe_file, std::move(*plan)});
  }
  if (arguments.json) fmt::print("{}\n", build::plan_report_json(planned, std::nullopt));
  const bool solved =
      std::all_of(planned.begin(), planned.end(), [](const build::PlannedRecipe& each) { return each.plan.solved(); });
  return solved ? 0 : 1;
}

int run_build(const BuildArguments& arguments) {
  const auto env = util::process_environment();
  const auto settings = environment::load_settings(settings_overrides(arguments.channels), env);
  if (!settings) return report_error(settings.error(), arguments.json);
  const std::string build_platform(specs::Platform::current().str());
  const std::string target_platform = arguments.target_platform.empty() ? build_platform : arguments.target_platform;
  if (!specs::Platform::parse(target_platform)) {
    return report_usage_error("--target-platform " + target_platform + " is not a conda platform (linux-64, "
                              "linux-aarch64, osx-arm64, win-64, ...)", arguments.json);
  }
  std::optional<build::PackageFormat> package_format;
  if (!arguments.package_format.empty()) {
    auto parsed = build::parse_package_format(arguments.package_format);
    if (!parsed) return report_usage_error(parsed.error().message, arguments.json);
    package_format = *parsed;
  }
  if (arguments.dry_run) return run_dry_run(arguments, *settings, target_platform);
  auto source_override = build::make_source_override(arguments.source, arguments.source_version);
  if (!source_override) return report_usage_error(source_override.error().message, arguments.json);
  CliBuildObserver observer(arguments.json);
  std::vector<build::BuiltVariant> built;
  for (const auto& argument : arguments.recipes) {
    const auto recipe_file = recipe_file_of(argument);
    build::RecipeBuildRequest request;
    request.render = render_request(arguments, target_platform);
    request.output_dir = fs::absolute(arguments.output_dir).lexically_normal();
    request.settings = &*settings;
    request.timestamp = build::reproducible_timestamp(env, recipe_file);
    request.package_format = package_format;
    request.source_override = *source_override;
    request.run_tests = !arguments.no_test && arguments.test_mode != "skip";
    const auto result = build::build_recipe(recipe_file, request, observer);
    for (const auto& each : result.built) {
      const auto& package = each.package;
      if (!arguments.json) {
        fmt::print("built {}-{}-{}: {} ({} files, {:.2f} s)\n", each.name, each.version, each.build_string,
                   package.package.string(), package.files, package.seconds);
      }
      built.push_back(each);
    }
    if (result.error) {
      const auto& message = result.error->message;
      if (result.error->kind == build::BuildErrorKind::variant_override) {
        return report_usage_error(message, arguments.json);
      }
      return fail(message, arguments.json, arguments.json ? build::build_report_json(built, message) : "");
    }
  }
  if (arguments.json) fmt::print("{}\n", build::build_report_json(built, std::nullopt));
  return 0;
}

}  // namespace

void add_build_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<BuildArguments>();
  auto* sub = app.add_subcommand("build", "Build every variant of recipe.yaml files into .conda packages");
  sub->add_option("-r,--recipe,recipe", arguments->recipes, "A recipe.yaml, or a directory holding one (repeatable)")
      ->required();
  sub->add_option("--output-dir", arguments->output_dir,
                  "Where packages go (<dir>/<subdir>/) and the work directories and logs (<dir>/bld/); default: output");
  sub->add_option("--variant", arguments->overrides, "Set a variant key: KEY=VALUE or KEY=V1,V2 (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("-m,--variant-config", arguments->variant_files,
                  "A variants.yaml or conda_build_config.yaml (repeatable; later files win)")
      ->allow_extra_args(false);
  sub->add_option("--target-platform", arguments->target_platform, "The platform to build for (default: this one)");
  sub->add_option("-c,--channel", arguments->channels.channels,
                  "A channel for the build and host environments (repeatable; before the configured ones)")
      ->allow_extra_args(false);
  sub->add_flag("--override-channels", arguments->channels.override_channels,
                "Use only the -c channels, not the configured ones");
  sub->add_option("--package-format", arguments->package_format,
                  "conda (default) or tar-bz2, optionally with a compression level: conda:22, tar-bz2:9");
  sub->add_option("--source", arguments->source,
                  "Build from this directory or archive instead of the recipe's sources (recorded in about.json)");
  sub->add_option("--source-version", arguments->source_version,
                  "Build under this version instead of the recipe's (recorded in about.json)");
  sub->add_option("--test", arguments->test_mode,
                  "Run the recipe's tests before a package enters the output channel (native, the default; "
                  "native-and-emulated is native here), or skip them")
      ->check(CLI::IsMember({"skip", "native", "native-and-emulated"}));
  sub->add_flag("--no-test", arguments->no_test, "Same as --test skip");
  sub->add_flag("--dry-run", arguments->dry_run,
                "Only plan: render every variant and solve its build and host environments (nothing fetched, "
                "extracted or built); exit 1 when one cannot be solved");
  sub->add_flag("--json", arguments->json, "Print JSON (steps and script output only in the log)");
  sub->callback([&run, arguments] { run = [arguments] { return run_build(*arguments); }; });
}

}  // namespace gpuenv::cli
