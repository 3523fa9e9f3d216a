// `gpuenv create`: solve a new environment from package specs against the
// channels and this machine's virtual packages. This release stops at the
// plan (--dry-run); installing lands with the package and prefix modules.
#include <fmt/core.h>

#include <cstdio>
#include <expected>
#include <memory>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "channel_setup.hpp"
#include "command.hpp"
#include "prefix_arguments.hpp"
#include "gpuenv/solver/machine_facts.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/system/system_survey.hpp"
#include "solve_output.hpp"

namespace gpuenv::cli {
namespace {

struct CreateArguments {
  PrefixArguments where;
  ChannelArguments channels;
  bool dry_run = false;
  bool json = false;
  bool yes = false;
  std::vector<std::string> specs;
};

// Errors before any solve: the same shape conda's --json errors have.
int fail(const CreateArguments& arguments, const std::string& message, int exit_code = 1) {
  if (arguments.json) {
    print_json_failure(message, {}, "CondaValueError");
  } else {
    std::fflush(stdout);
    fmt::print(stderr, "gpuenv: error: {}\n", message);
  }
  return exit_code;
}

int run_create(const CreateArguments& arguments) {
  if (!arguments.dry_run) {
    return fail(arguments,
                "installing packages lands with a later release of gpuenv; use --dry-run to see what "
                "`gpuenv create` would install",
                2);
  }
  const auto env = util::process_environment();
  const auto prefix = resolve_prefix(arguments.where, env, WhenNoPrefixGiven::refuse);
  if (!prefix) return fail(arguments, prefix.error(), 2);
  if (arguments.specs.empty()) return fail(arguments, "name at least one package to put in the environment", 2);

  std::vector<specs::MatchSpec> requested;
  try {
    requested = parse_specs(arguments.specs, channel_context(env));
  } catch (const specs::SpecError& error) {
    return fail(arguments, error.what());
  }

  const std::string platform(specs::Platform::current().str());
  solver::PackageDatabase database;
  const auto loaded = load_channels_for(database, arguments.channels, requested, platform, env, !arguments.json);
  if (!loaded) return fail(arguments, loaded.error());

  // The virtual packages of this machine (CUDA detection through its cache,
  // CONDA_OVERRIDE_* honoured): what the environment is solved for.
  system::SurveyOptions survey_options;
  survey_options.program_version = GPUENV_VERSION;
  const auto survey = system::survey_system(env, survey_options);
  for (const auto& warning : survey.warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
  const auto machine = solver::machine_facts_from(survey, platform);
  database.set_installed({}, machine.virtual_packages);

  solver::SolveRequest request;
  request.install = requested;
  request.channel_priority = channel_priority(arguments.channels);
  const auto solution = solver::solve(database, request, machine);
  if (!solution) {
    if (arguments.json) {
      print_json_failure(solution.error().summary(), solution.error().lines(), "UnsatisfiableError");
    } else {
      print_unsolvable(solution.error());
    }
    return 1;
  }
  if (arguments.json) {
    print_json_plan(*solution, *loaded, *prefix);
  } else {
    print_plan(*solution, *loaded, *prefix, machine);
  }
  return 0;
}

}  // namespace

void add_create_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<CreateArguments>();
  auto* sub = app.add_subcommand("create", "Create an environment from package specs");
  add_prefix_options(sub, arguments->where);
  add_channel_options(sub, arguments->channels);
  sub->add_flag("--dry-run,-d", arguments->dry_run, "Only show what would be installed");
  sub->add_flag("--json", arguments->json, "Report as JSON (conda's shape)");
  sub->add_flag("-y,--yes", arguments->yes, "Do not ask for confirmation");
  sub->add_option("specs", arguments->specs, "Package specs (conda MatchSpec syntax)");
  sub->callback([&run, arguments] { run = [arguments] { return run_create(*arguments); }; });
}

}  // namespace gpuenv::cli
