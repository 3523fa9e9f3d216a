// `gpuenv build RECIPE...`: every variant of each recipe built into a .conda
// under --output-dir (rattler-build's flag names), the build module doing
// the work. Steps and the script's output stream to stderr (and the log);
// stdout says what was built, or with --json gives it as one document.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <expected>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "build_observer.hpp"
#include "build_plan_output.hpp"
#include "channel_setup.hpp"
#include "command.hpp"
#include "error_output.hpp"
#include "repository_options.hpp"
#include "gpuenv/builder/build_plan.hpp"
#include "gpuenv/builder/build_recipe.hpp"
#include "gpuenv/builder/build_repository.hpp"
#include "gpuenv/builder/recipe_order.hpp"
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
  RepositoryArguments repository;  // --source-for, --source-archives, --skip-existing
};

// The recipe files the arguments name (directories of recipes expanded).
std::expected<std::vector<fs::path>, std::string> recipe_files_of(const std::vector<std::string>& arguments) {
  std::vector<fs::path> files;
  for (const auto& argument : arguments) {
    auto found = build::find_recipe_files(fs::absolute(argument));
    if (!found) return std::unexpected(found.error().message);
    for (auto& file : *found) {
      if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(std::move(file));
    }
  }
  return files;
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
  const auto recipe_files = recipe_files_of(arguments.recipes);
  if (!recipe_files) return report_usage_error(recipe_files.error(), arguments.json);
  for (const auto& recipe_file : *recipe_files) {
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

void print_built(const build::BuiltVariant& each) {
  const auto& package = each.package;
  fmt::print("built {}-{}-{}: {} ({} files, {:.2f} s)\n", each.name, each.version, each.build_string,
             package.package.string(), package.files, package.seconds);
}

// The end of a whole-repository build: one line per package (or per recipe
// that did not get to build), and the totals.
void print_repository_table(const build::RepositoryBuildResult& result, double seconds) {
  std::size_t counts[4] = {0, 0, 0, 0};
  fmt::print("\n{:<34} {:<58} {:<10} {:>9}\n", "recipe", "package", "result", "seconds");
  for (const auto& recipe : result.recipes) {
    const auto name = recipe.recipe_file.parent_path().filename().string();
    ++counts[static_cast<int>(recipe.status)];
    for (const auto& each : recipe.built) {
      fmt::print("{:<34} {:<58} {:<10} {:>9.1f}\n", name, each.name + "-" + each.version + "-" + each.build_string,
                 "built", each.package.seconds);
    }
    for (const auto& each : recipe.skipped) {
      fmt::print("{:<34} {:<58} {:<10} {:>9}\n", name, each.name + "-" + each.version + "-" + each.build_string,
                 "skipped", "-");
    }
    if (recipe.status == build::RecipeOutcome::Status::failed || recipe.status == build::RecipeOutcome::Status::not_built) {
      fmt::print("{:<34} {:<58} {:<10} {:>9}\n", name, "", build::outcome_status_name(recipe.status),
                 recipe.status == build::RecipeOutcome::Status::failed ? fmt::format("{:.1f}", recipe.seconds) : "-");
    }
  }
  fmt::print("{} recipes: {} built, {} skipped (all in the output channel), {} failed, {} not built; {:.1f} s\n",
             result.recipes.size(), counts[0], counts[1], counts[2], counts[3], seconds);
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
  const auto recipe_files = recipe_files_of(arguments.recipes);
  if (!recipe_files) return report_usage_error(recipe_files.error(), arguments.json);
  if (recipe_files->size() > 1 && !source_override->empty()) {
    return report_usage_error("--source and --source-version replace one recipe's sources and version, but " +
                              std::to_string(recipe_files->size()) + " recipes were given: build that recipe "
                              "on its own first (a later whole-repository build skips it)", arguments.json);
  }
  const auto sources_for = sources_for_recipes(arguments.repository.sources_for, *recipe_files);
  if (!sources_for) return report_usage_error(sources_for.error(), arguments.json);
  std::map<fs::path, build::SourceOverride> recipe_source_overrides;
  for (const auto& [recipe, path] : *sources_for) {
    auto override = build::make_source_override(path, std::nullopt);
    if (!override) return report_usage_error(override.error().message, arguments.json);
    recipe_source_overrides[recipe] = std::move(*override);
  }
  const auto skip_existing = skip_existing_of(arguments.repository.skip_existing, recipe_files->size());
  if (!skip_existing) return report_usage_error(skip_existing.error(), arguments.json);
  CliBuildObserver observer(arguments.json);
  build::RecipeBuildRequest request;
  request.render = render_request(arguments, target_platform);
  request.output_dir = fs::absolute(arguments.output_dir).lexically_normal();
  request.settings = &*settings;
  request.timestamp = 0;  // each recipe: SOURCE_DATE_EPOCH, else its own file's time
  request.package_format = package_format;
  request.source_override = *source_override;
  request.run_tests = !arguments.no_test && arguments.test_mode != "skip";
  request.skip_existing = *skip_existing;
  request.recipe_source_overrides = std::move(recipe_source_overrides);
  for (const auto& directory : arguments.repository.source_archives) {
    std::error_code error;
    if (!fs::is_directory(directory, error)) {
      return report_usage_error("--source-archives " + directory + " is not a directory", arguments.json);
    }
    request.source_archive_dirs.push_back(fs::absolute(directory));
  }
  const auto start = std::chrono::steady_clock::now();
  const auto result = build::build_repository(*recipe_files, request, observer);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<build::BuiltVariant> built;
  std::vector<build::SkippedVariant> skipped;
  for (const auto& recipe : result.recipes) {
    built.insert(built.end(), recipe.built.begin(), recipe.built.end());
    skipped.insert(skipped.end(), recipe.skipped.begin(), recipe.skipped.end());
  }
  if (!arguments.json) {
    for (const auto& each : built) print_built(each);
    if (recipe_files->size() > 1 || !skipped.empty()) print_repository_table(result, seconds);
  }
  if (result.error) {
    const auto& message = result.error->message;
    if (result.error->kind == build::BuildErrorKind::variant_override) return report_usage_error(message, arguments.json);
    return fail(message, arguments.json, arguments.json ? build::build_report_json(built, skipped, message) : "");
  }
  if (arguments.json) fmt::print("{}\n", build::build_report_json(built, skipped, std::nullopt));
  return 0;
}

}  // namespace

void add_build_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<BuildArguments>();
  auto* sub = app.add_subcommand("build", "Build every variant of recipe.yaml files into .conda packages");
  sub->add_option("-r,--recipe,recipe", arguments->recipes,
                  "A recipe.yaml, a directory holding one, or a directory of recipes, built in the order their "
                  "requirements on each other's packages need (repeatable)")
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
  add_repository_options(sub, arguments->repository);
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
