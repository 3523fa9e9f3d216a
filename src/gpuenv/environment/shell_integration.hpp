// `gpuenv shell hook|activate|deactivate|reactivate`, as micromamba's
// `shell hook` does it: `eval "$(gpuenv shell hook --shell bash)"` defines a
// shell function `gpuenv` that runs the program for every command except
// activate/deactivate/reactivate, whose output (shell code from `gpuenv
// shell activate ...`) it evaluates in the current shell. The code that
// changes the variables is activation.hpp's posix_shell_script.
#pragma once

#include <expected>
#include <string>

#include "gpuenv/environment/activation.hpp"
#include "gpuenv/environment/error.hpp"
#include "gpuenv/environment/prefix_location.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::environment {

// The shell to write code for: `given` (--shell), else $SHELL's name.
// zsh and dash read the same POSIX code as bash; "sh" and "dash" become
// "posix". Anything else is refused (usage), saying which shells there are.
std::expected<std::string, Error> chosen_shell(const std::string& given, const util::EnvLookup& env);

// The hook: the `gpuenv` shell function, calling `program` (this
// executable's path, quoted for the shell) for `shell`.
std::string shell_hook_script(const std::string& shell, const std::string& program);

// Which environment `activate [NAME|PATH] [-p|-n]` means: the argument or
// -p/-n (not both: usage error), `base` when neither, as `conda activate`.
// conda's rule: an argument with a '/' is a path.
std::expected<PrefixChoice, Error> activation_target(const std::string& argument, const PrefixChoice& options);

// `shell reactivate`: the active environment (CONDA_PREFIX) activated
// again, so its scripts run again; an error when none is active.
std::expected<EnvironmentChanges, Error> reactivation_changes(const util::EnvLookup& env);

}  // namespace gpuenv::environment
