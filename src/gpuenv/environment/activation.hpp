// Activating and deactivating an environment the way conda's activator does
// it on Linux (conda/activate.py): which variables change, which scripts
// run, and the POSIX shell code that does it in a user's shell. `gpuenv run`
// applies the same changes to the environment of the command it runs.
//
// Activation of PREFIX, with CONDA_SHLVL=n and CONDA_PREFIX=OLD before:
//   n == 0          PATH gets PREFIX/bin in front
//   OLD == PREFIX   reactivation: deactivate.d and activate.d run again
//   otherwise       OLD's deactivate.d scripts run and its variables go,
//                   PREFIX/bin replaces OLD/bin in PATH, CONDA_PREFIX_<n>=OLD
//   then CONDA_PREFIX, CONDA_SHLVL, CONDA_DEFAULT_ENV, CONDA_PROMPT_MODIFIER,
//   the environment's variables (etc/conda/env_vars.d/*.json, then
//   conda-meta/state's "env_vars", as `conda env config vars` writes them),
//   and its etc/conda/activate.d/*.sh scripts, in name order.
// Deactivation undoes one level: back to CONDA_PREFIX_<n-1>, or to no
// environment at all.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpuenv/util/environment.hpp"

namespace gpuenv::environment {

struct EnvironmentChanges {
  std::vector<std::filesystem::path> deactivate_scripts;  // run first, before any change
  std::vector<std::string> unset_variables;
  std::vector<std::pair<std::string, std::string>> exported_variables;  // in order
  std::vector<std::filesystem::path> activate_scripts;  // run last
  // The prompt prefix afterwards ("(name) "; "" when none): a shell puts it
  // in front of PS1 in place of the old CONDA_PROMPT_MODIFIER.
  std::string prompt_modifier;
  bool change_prompt = true;  // CONDA_CHANGEPS1=false turns it off, as in conda
  // Variables in env_vars files that cannot be a shell variable, and such.
  std::vector<std::string> warnings;
};

// The changes that activate `prefix` on top of the environment `env`.
EnvironmentChanges activation_changes(const std::filesystem::path& prefix, const util::EnvLookup& env);

// The changes that deactivate the active environment. No environment
// active: no changes (as conda does), and a warning saying so.
EnvironmentChanges deactivation_changes(const util::EnvLookup& env);

// The variables an environment sets on activation: etc/conda/env_vars.d/*.json
// (name order; packages ship these) overridden by conda-meta/state's
// "env_vars" (`conda env config vars set`). Names that are not shell
// variable names are skipped with a warning.
std::vector<std::pair<std::string, std::string>> environment_variables_of(const std::filesystem::path& prefix,
                                                                          std::vector<std::string>& warnings);

// etc/conda/<activate.d|deactivate.d>/*.sh of `prefix`, in name order.
std::vector<std::filesystem::path> activation_scripts(const std::filesystem::path& prefix,
                                                      const std::string& directory);

// conda's CONDA_DEFAULT_ENV: "base" for the root prefix, the directory's
// name for an environment in an envs directory, else the path.
std::string default_environment_name(const std::filesystem::path& prefix, const util::EnvLookup& env);

// POSIX shell code (bash, zsh, dash) applying `changes` in the current
// shell: `. script` lines, unset, export, PS1.
std::string posix_shell_script(const EnvironmentChanges& changes);

// `text` in single quotes, for any POSIX shell.
std::string shell_single_quote(const std::string& text);

// The process environment `changes` turn `current` into (scripts aside).
std::map<std::string, std::string> apply_changes(std::map<std::string, std::string> current,
                                                 const EnvironmentChanges& changes);

// This process's environment as a map.
std::map<std::string, std::string> current_process_environment();

}  // namespace gpuenv::environment
