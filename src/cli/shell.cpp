// `gpuenv shell hook|activate|deactivate|reactivate`: options and printing;
// what the code does is in environment/shell_integration.hpp.
#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "command.hpp"
#include "error_output.hpp"
#include "gpuenv/environment/activation.hpp"
#include "gpuenv/environment/installed_environment.hpp"
#include "gpuenv/environment/shell_integration.hpp"
#include "gpuenv/util/subprocess.hpp"
#include "prefix_arguments.hpp"

namespace gpuenv::cli {
namespace {

struct ShellArguments {
  std::string shell;
  PrefixArguments where;
  std::string environment;  // `activate NAME|PREFIX`
};

std::string this_program() {
  const auto path = util::running_executable();
  return path ? path->string() : std::string("gpuenv");
}

int print_changes(const environment::EnvironmentChanges& changes) {
  print_notes({}, changes.warnings);
  fmt::print("{}", environment::posix_shell_script(changes));
  return 0;
}

int run_hook(const ShellArguments& arguments) {
  const auto shell = environment::chosen_shell(arguments.shell, util::process_environment());
  if (!shell) return report_error(shell.error());
  fmt::print("{}", environment::shell_hook_script(*shell, this_program()));
  return 0;
}

int run_activate(const ShellArguments& arguments) {
  const auto env = util::process_environment();
  if (const auto shell = environment::chosen_shell(arguments.shell, env); !shell) return report_error(shell.error());
  const auto target = environment::activation_target(arguments.environment, prefix_choice(arguments.where));
  if (!target) return report_error(target.error());
  const auto opened = environment::open_environment(*target, env, environment::WhenNoPrefixGiven::refuse,
                                                    environment::PrefixUse::put_on_path);
  if (!opened) return report_error(opened.error());
  print_notes(opened->notes, opened->warnings);
  return print_changes(environment::activation_changes(opened->prefix, env));
}

int run_reactivate(const ShellArguments& arguments) {
  const auto env = util::process_environment();
  if (const auto shell = environment::chosen_shell(arguments.shell, env); !shell) return report_error(shell.error());
  const auto changes = environment::reactivation_changes(env);
  if (!changes) return report_error(changes.error());
  return print_changes(*changes);
}

int run_deactivate(const ShellArguments& arguments) {
  const auto env = util::process_environment();
  if (const auto shell = environment::chosen_shell(arguments.shell, env); !shell) return report_error(shell.error());
  return print_changes(environment::deactivation_changes(env));
}

void add_shell_option(CLI::App* command, ShellArguments& arguments) {
  command->add_option("-s,--shell", arguments.shell, "bash, zsh or posix (default: from $SHELL)");
}

}  // namespace

void add_shell_command(CLI::App& app, Runner& run) {
  auto* shell = app.add_subcommand("shell", "Shell integration: hook, activate, deactivate");
  shell->require_subcommand(1);

  auto hook_arguments = std::make_shared<ShellArguments>();
  auto* hook = shell->add_subcommand(
      "hook", "Print the shell code that defines `gpuenv activate/deactivate`: eval \"$(gpuenv shell hook -s bash)\"");
  add_shell_option(hook, *hook_arguments);
  hook->callback([&run, hook_arguments] { run = [hook_arguments] { return run_hook(*hook_arguments); }; });

  auto activate_arguments = std::make_shared<ShellArguments>();
  auto* activate = shell->add_subcommand("activate", "Print the shell code that activates an environment");
  add_shell_option(activate, *activate_arguments);
  add_prefix_options(activate, activate_arguments->where);
  activate->add_option("environment", activate_arguments->environment,
                       "Name or path of the environment (default: base)");
  activate->callback(
      [&run, activate_arguments] { run = [activate_arguments] { return run_activate(*activate_arguments); }; });

  auto reactivate_arguments = std::make_shared<ShellArguments>();
  auto* reactivate = shell->add_subcommand(
      "reactivate", "Print the shell code that runs the active environment's scripts again");
  add_shell_option(reactivate, *reactivate_arguments);
  reactivate->callback([&run, reactivate_arguments] {
    run = [reactivate_arguments] { return run_reactivate(*reactivate_arguments); };
  });

  auto deactivate_arguments = std::make_shared<ShellArguments>();
  auto* deactivate =
      shell->add_subcommand("deactivate", "Print the shell code that deactivates the active environment");
  add_shell_option(deactivate, *deactivate_arguments);
  deactivate->callback([&run, deactivate_arguments] {
    run = [deactivate_arguments] { return run_deactivate(*deactivate_arguments); };
  });
}

}  // namespace gpuenv::cli
