#include "gpuenv/environment/shell_integration.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "gpuenv/environment/activation.hpp"

namespace gpuenv::environment {

std::expected<std::string, Error> chosen_shell(const std::string& given, const util::EnvLookup& env) {
  std::string shell = given;
  if (shell.empty()) {
    shell = std::filesystem::path(env("SHELL").value_or("")).filename().string();
    if (shell.empty()) {
      return std::unexpected(
          make_error(ErrorKind::usage, "say which shell to write code for: --shell bash, zsh or posix"));
    }
  }
  if (shell == "sh" || shell == "dash") shell = "posix";
  if (shell == "bash" || shell == "zsh" || shell == "posix") return shell;
  return std::unexpected(make_error(
      ErrorKind::usage,
      fmt::format("gpuenv writes shell code for bash, zsh and posix (sh, dash) only, not '{}': give one of those "
                  "to --shell",
                  shell)));
}

std::string shell_hook_script(const std::string& shell, const std::string& program) {
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
                     fmt::arg("shell", shell), fmt::arg("exe", shell_single_quote(program)));
}

std::expected<PrefixChoice, Error> activation_target(const std::string& argument, const PrefixChoice& options) {
  PrefixChoice target = options;
  if (!argument.empty()) {
    if (!options.path.empty() || !options.name.empty()) {
      return std::unexpected(
          make_error(ErrorKind::usage, "name the environment once: either as an argument or with -p/-n"));
    }
    if (argument.find('/') != std::string::npos) {
      target.path = argument;
    } else {
      target.name = argument;
    }
  }
  if (target.path.empty() && target.name.empty()) target.name = "base";
  return target;
}

std::expected<EnvironmentChanges, Error> reactivation_changes(const util::EnvLookup& env) {
  const auto active = env("CONDA_PREFIX");
  if (!active || active->empty()) {
    return std::unexpected(make_error(ErrorKind::no_environment, "no environment is active: nothing to reactivate"));
  }
  return activation_changes(*active, env);
}

}  // namespace gpuenv::environment
