#include "environment_change.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <optional>

#include "gpuenv/environment/apply.hpp"
#include "gpuenv/environment/change_report.hpp"
#include "gpuenv/environment/cuda_without_driver.hpp"
#include "gpuenv/environment/environment_name.hpp"
#include "gpuenv/environment/installed_device_code.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/environment/whole_environment.hpp"
#include "gpuenv/specs/url_credentials.hpp"
#include "gpuenv/util/subprocess.hpp"
#include "condition_output.hpp"
#include "error_output.hpp"
#include "solve_output.hpp"
#include "terminal_reporter.hpp"
#include "transaction_output.hpp"

namespace gpuenv::cli {
namespace {

namespace fs = std::filesystem;
using environment::ChangeKind;
using environment::ErrorKind;

// conda's prompt: an empty answer is yes.
enum class Answer { yes, no, no_terminal };
Answer confirm() {
  if (::isatty(STDIN_FILENO) != 1) return Answer::no_terminal;
  fmt::print("Proceed ([y]/n)? ");
  std::fflush(stdout);
  std::string answer;
  if (!std::getline(std::cin, answer)) {
    fmt::print("\n");
    return Answer::no;
  }
  for (auto& c : answer) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  answer.erase(0, answer.find_first_not_of(" \t"));
  answer.erase(answer.find_last_not_of(" \t") + 1);
  return answer.empty() || answer == "y" || answer == "yes" ? Answer::yes : Answer::no;
}

// -p/-n; for create, an environment.yml's name when neither is given.
std::expected<fs::path, int> environment_prefix(ChangeKind kind, const ChangeArguments& arguments,
                                                const std::string& file_name, const util::EnvLookup& env) {
  const auto choice = prefix_choice(arguments.where);
  // conda env create: the file's name, unless -p or -n says otherwise.
  auto prefix = kind == ChangeKind::create
                    ? environment::resolve_new_environment_prefix(choice, file_name, env)
                    : environment::resolve_prefix(choice, env, environment::WhenNoPrefixGiven::use_active_prefix);
  if (!prefix) return std::unexpected(report_error(prefix.error(), arguments.json));
  return *prefix;
}

// Shows the plan and, unless a dry run, asks (on a terminal, without -y),
// applies it and reports what changed.
int carry_out(environment::Plan& plan, const environment::Settings& settings,
              const ChangeArguments& arguments, environment::Reporter& reporter) {
  const auto& solution = plan.solution;
  if (plan.changes_nothing()) {
    if (arguments.json) {
      fmt::print("{}\n", environment::nothing_to_do_json(plan));
    } else {
      fmt::print("{}\n", plan.nothing_to_do);
    }
    return 0;
  }
  if (const auto note = environment::cuda_without_driver_note(plan)) reporter.warning(*note);
  if (arguments.dry_run) {
    if (arguments.json) {
      fmt::print("{}\n", environment::dry_run_json(plan));
    } else {
      print_plan(solution, plan.loaded, plan.prefix, plan.machine, settings.directories.pkgs_dirs);
      print_conditions(plan.conditions);
      fmt::print("Dry run: nothing was changed.\n");
    }
    return 0;
  }
  if (!arguments.json) {
    print_plan(solution, plan.loaded, plan.prefix, plan.machine, settings.directories.pkgs_dirs);
    print_conditions(plan.conditions);
  }
  if (const auto stop = ask_to_go_ahead(arguments.yes, arguments.json, settings)) return *stop;

  environment::ApplyOptions options;
  options.command_line = util::running_command_line();
  options.override_frozen = arguments.override_frozen;
  const auto applied = environment::apply(plan, settings, options, reporter);
  if (!applied) return report_error(applied.error(), arguments.json);
  if (arguments.json) {
    fmt::print("{}\n", environment::applied_change_json(plan, *applied));
    std::fflush(stdout);
    for (const auto& warning : applied->transaction.warnings) reporter.warning(warning);
  } else {
    fmt::print("{}\n", summary_line(*applied));
    print_transaction_notes(applied->transaction);
    std::fflush(stdout);
  }
  for (const auto& warning : environment::installed_device_code_warnings(plan, *applied, settings))
    reporter.warning(warning);
  return 0;
}

// conda remove --all: every package unlinked in one transaction (pre-unlink
// scripts, the journal: a failure leaves the environment as it was), then
// the directory deleted (environment/whole_environment.hpp).
int remove_environment(const ChangeArguments& arguments, const environment::Settings& settings,
                       const util::EnvLookup& env, environment::Reporter& reporter) {
  if (!arguments.specs.empty()) {
    return report_usage_error("remove --all removes the whole environment, so it takes no package names; "
                              "to remove packages, leave out --all",
                              arguments.json);
  }
  const auto prefix = environment_prefix(ChangeKind::remove, arguments, {}, env);
  if (!prefix) return prefix.error();
  if (const auto refused = environment::refuse_deleting(*prefix, env, arguments.override_frozen)) {
    return report_error(*refused, arguments.json);
  }
  std::vector<std::string> warnings;
  const auto request = environment::removal_of_every_package(*prefix, arguments.dry_run, warnings);
  for (const auto& warning : warnings) reporter.warning(warning);
  if (!arguments.json) {
    fmt::print("The environment {} and every file in it will be deleted.\n", prefix->string());
  }
  if (!request.specs.empty()) {
    auto plan = environment::plan(settings, request, reporter);
    if (!plan) return report_error(plan.error(), arguments.json);
    if (const int status = carry_out(*plan, settings, arguments, reporter); status != 0) return status;
    if (arguments.dry_run) return 0;
  } else if (arguments.dry_run) {
    if (!arguments.json) fmt::print("Dry run: nothing was changed.\n");
    return 0;
  } else if (const auto stop = ask_to_go_ahead(arguments.yes, arguments.json, settings)) {
    return *stop;
  }
  if (auto deleted = environment::delete_environment_directory(*prefix); !deleted) {
    return report_error(deleted.error(), arguments.json);
  }
  if (!arguments.json) fmt::print("Removed the environment {}\n", prefix->string());
  return 0;
}

}  // namespace

// Unless -y, --json or always_yes: asks on the terminal. The exit status to
// stop with when the answer is no (or there is no terminal), else nothing.
std::optional<int> ask_to_go_ahead(bool yes, bool json, const environment::Settings& settings) {
  if (yes || json || settings.configuration.always_yes) return std::nullopt;
  switch (confirm()) {
    case Answer::yes:
      return std::nullopt;
    case Answer::no:
      fmt::print(stderr, "gpuenv: nothing was changed\n");
      return 1;
    case Answer::no_terminal:
      break;
  }
  return report_error(environment::make_error(ErrorKind::configuration,
                                              "there is no terminal to ask for confirmation on: add -y "
                                              "(--yes) to go ahead; nothing was changed"),
                      json);
}

void add_change_options(CLI::App* command, ChangeArguments& arguments, ChangeKind kind) {
  add_prefix_options(command, arguments.where);
  if (kind != ChangeKind::remove) add_channel_options(command, arguments.channels);
  if (kind == ChangeKind::create || kind == ChangeKind::install) {
    command->add_option("--file", arguments.files,
                        "Read the packages from a file: environment.yml, an explicit lockfile (@EXPLICIT) "
                        "or one spec a line (repeatable)")
        ->allow_extra_args(false);
    auto* no_deps = command->add_flag("--no-deps", arguments.no_deps,
                                      "Install only the requested packages, not their dependencies (this can "
                                      "leave the environment broken)");
    command->add_flag("--only-deps", arguments.only_deps, "Install only the dependencies of the requested packages")
        ->excludes(no_deps);
  }
  if (kind == ChangeKind::create) {
    command->add_option("--clone", arguments.clone,
                        "Copy the packages of an existing environment (a name, or a path with a '/'): the same "
                        "builds, from the package cache or their URLs, nothing solved");
  }
  if (kind == ChangeKind::update) {
    command->add_flag("--all", arguments.update_all, "Update every package in the environment");
  }
  if (kind == ChangeKind::remove) {
    command->add_flag("--all", arguments.remove_all,
                      "Remove the whole environment: every package, then its directory (conda env remove)");
  }
  command->add_flag("--dry-run,-d", arguments.dry_run, "Only show what would change");
  command->add_flag("--json", arguments.json, "Report as JSON (conda's shape); implies --yes");
  command->add_flag("-y,--yes", arguments.yes, "Do not ask for confirmation");
  if (kind != ChangeKind::create) {
    command->add_flag("--override-frozen", arguments.override_frozen,
                      "Change the environment even though it is frozen (CEP 22)");
  }
  command->add_option("specs", arguments.specs,
                      kind == ChangeKind::remove ? "Packages to remove" : "Package specs (conda MatchSpec syntax)");
}

int run_change(ChangeKind kind, const ChangeArguments& arguments) {
  const auto env = util::process_environment();
  TerminalReporter reporter(!arguments.json);
  const auto settings = environment::load_settings(settings_overrides(arguments.channels), env);
  if (!settings) return report_error(settings.error(), arguments.json);
  for (const auto& warning : settings->warnings) reporter.warning(warning);
  if (arguments.remove_all) return remove_environment(arguments, *settings, env, reporter);

  environment::ChangeRequest request;
  request.kind = kind;
  request.specs = arguments.specs;
  request.update_all = arguments.update_all;
  request.dry_run = arguments.dry_run;
  request.deps_modifier = arguments.no_deps     ? environment::DepsModifier::no_deps
                          : arguments.only_deps ? environment::DepsModifier::only_deps
                                                : environment::DepsModifier::none;
  if (!arguments.clone.empty()) {
    if (!arguments.specs.empty() || !arguments.files.empty()) {
      return report_usage_error("--clone copies a whole environment: give it no package specs and no --file",
                                arguments.json);
    }
    auto cloned = environment::clone_source(arguments.clone, env);
    if (!cloned) return report_error(cloned.error(), arguments.json);
    request.files = std::move(*cloned);
  } else if (!arguments.files.empty()) {
    const std::vector<fs::path> files(arguments.files.begin(), arguments.files.end());
    auto read = environment::read_request_files(files, !arguments.specs.empty(), settings->channel_context, reporter);
    if (!read) return report_error(read.error(), arguments.json);
    request.files = std::move(*read);
  }
  const auto prefix = environment_prefix(kind, arguments, request.files.name, env);
  if (!prefix) return prefix.error();
  request.prefix = *prefix;

  auto plan = environment::plan(*settings, request, reporter);
  if (!plan) return report_error(plan.error(), arguments.json);
  return carry_out(*plan, *settings, arguments, reporter);
}

}  // namespace gpuenv::cli
