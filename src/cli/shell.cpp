// `gpuenv shell hook|activate|deactivate|reactivate`: shell integration, as
// micromamba's `shell hook` does it. `eval "$(gpuenv shell hook --shell bash)"`
// defines a shell function `gpuenv` that runs the program for every
// command except activate/deactivate/reactivate, whose output (shell code
// from `gpuenv shell activate ...`) it evaluates in the current shell.
#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "gpuenv/environment/activation.hpp"
#include "gpuenv/environment/environment_name.hpp"
#include "command.hpp"
#include "gpuenv/environment/installed_environment.hpp"
#include "prefix_arguments.hpp"

namespace gpuenv::cli {
namespace {

struct ShellArguments {
  std::string shell;
  PrefixArguments where;
  std::string environment;  // `activate NAME|PREFIX`
};

int fail(const std::string& message, int exit_code = 1) {
  std::fflush(stdout);
  fmt::print(stderr, "gpuenv: error: {}\n", message);
  return exit_code;
}

// The shells whose code gpuenv writes. zsh and dash read the same POSIX
// code as bash; the names differ only in the hook's `--shell` argument.
std::expected<std::string, std::string> chosen_shell(const std::string& given, const util::EnvLookup& env) {
  std::string shell = given;
  if (shell.empty()) {
    shell = std::filesystem::path(env("SHELL").value_or("")).filename().string();
    if (shell.empty()) {
      return std::unexpected(std::string("say which shell to write code for: --shell bash, zsh or posix"));
    }
  }
  if (shell == "sh" || shell == "dash") shell = "posix";
  if (shell == "bash" || shell == "zsh" || shell == "posix") return shell;
  return std::unexpected(fmt::format("gpuenv writes shell code for bash, zsh and posix (sh, dash) only, not "
                                     "'{}': give one of those to --shell",
                                     shell));
}

std::string this_program() {
  std::error_code error;
  auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("gpuenv") : path.string();
}

std::string hook_script(const std::string& shell) {
  // No `local` (not POSIX), so the temporaries are unset by hand.
  return fmt::format(R"SH(# gpuenv shell integration ({shell}): `gpuenv activate [NAME|PREFIX]`, `gpuenv deactivate`
export GPUENV_EXE={exe}
gpuenv() {{
  case "${{1-}}" in
    activate|deactivate|reactivate)
      __gpuenv_code="$("$GPUENV_EXE" shell "$@" --shell {shell})" || {{
        __gpuenv_status=$?
        unset __gpuenv_code
        return "$__gpuenv_status"
      }}
      eval "$__gpuenv_code"
      unset __gpuenv_code
      hash -r 2>/dev/null
      return 0
      ;;
    *)
      "$GPUENV_EXE" "$@"
      ;;
  esac
}}
if [ -z "${{CONDA_SHLVL+x}}" ]; then
  export CONDA_SHLVL=0
fi
)SH",
                     fmt::arg("shell", shell), fmt::arg("exe", environment::shell_single_quote(this_program())));
}

int print_changes(const environment::EnvironmentChanges& changes) {
  for (const auto& warning : changes.warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
  fmt::print("{}", environment::posix_shell_script(changes));
  return 0;
}

int run_hook(const ShellArguments& arguments) {
  const auto shell = chosen_shell(arguments.shell, util::process_environment());
  if (!shell) return fail(shell.error(), 2);
  fmt::print("{}", hook_script(*shell));
  return 0;
}

int run_activate(const ShellArguments& arguments) {
  const auto env = util::process_environment();
  if (const auto shell = chosen_shell(arguments.shell, env); !shell) return fail(shell.error(), 2);
  PrefixArguments where = arguments.where;
  if (!arguments.environment.empty()) {
    if (!where.prefix.empty() || !where.name.empty()) {
      return fail("name the environment once: either as an argument or with -p/-n", 2);
    }
    // conda's rule: an argument with a path separator is a path.
    if (arguments.environment.find('/') != std::string::npos) {
      where.prefix = arguments.environment;
    } else {
      where.name = arguments.environment;
    }
  }
  if (where.prefix.empty() && where.name.empty()) where.name = "base";  // as `conda activate`
  const auto prefix = environment::resolve_prefix(prefix_choice(where), env, environment::WhenNoPrefixGiven::refuse);
  if (!prefix) return fail(prefix.error(), 2);
  if (auto usable = environment::check_prefix_for_path(*prefix); !usable) return fail(usable.error(), 2);
  if (auto checked = environment::check_environment(*prefix); !checked) return fail(checked.error());
  const auto settled = environment::settle_interrupted_transaction(*prefix);
  if (settled.note) fmt::print(stderr, "gpuenv: {}\n", *settled.note);
  if (settled.warning) fmt::print(stderr, "gpuenv: warning: {}\n", *settled.warning);
  return print_changes(environment::activation_changes(*prefix, env));
}

int run_reactivate(const ShellArguments& arguments) {
  const auto env = util::process_environment();
  if (const auto shell = chosen_shell(arguments.shell, env); !shell) return fail(shell.error(), 2);
  const auto active = env("CONDA_PREFIX");
  if (!active || active->empty()) return fail("no environment is active: nothing to reactivate");
  return print_changes(environment::activation_changes(*active, env));
}

int run_deactivate(const ShellArguments& arguments) {
  const auto env = util::process_environment();
  if (const auto shell = chosen_shell(arguments.shell, env); !shell) return fail(shell.error(), 2);
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
