#include "gpuenv/environment/command_in_environment.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include "gpuenv/environment/activation.hpp"

namespace gpuenv::environment {
namespace {

bool is_executable_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

// The activate.d scripts are shell code: a shell sources them, then execs
// the command. bash hides the command's words from the scripts (which,
// sourced, would otherwise see them as "$@"); a plain POSIX shell has no
// arrays, so there the scripts see them.
std::vector<std::string> shell_wrapped(const std::vector<std::filesystem::path>& scripts,
                                       const std::vector<std::string>& command, const std::string& path) {
  const auto bash = find_on_path("bash", path);
  const bool use_bash = bash && bash->starts_with("/");
  const std::string shell = use_bash ? *bash : "/bin/sh";
  std::string script = use_bash ? "__gpuenv_run_command=(\"$@\"); set --\n" : "";
  for (const auto& file : scripts) script += ". " + shell_single_quote(file.string()) + "\n";
  const std::string first = use_bash ? "${__gpuenv_run_command[0]}" : "$1";
  const std::string all = use_bash ? "\"${__gpuenv_run_command[@]}\"" : "\"$@\"";
  script += "if ! command -v \"" + first + "\" >/dev/null 2>&1; then\n"
            "  printf 'gpuenv: error: %s: command not found in the environment (PATH=%s)\\n' \"" + first +
            "\" \"$PATH\" >&2\n  exit 127\nfi\n"
            "exec " + all + "\n";
  std::vector<std::string> arguments = {shell, "-c", script, "gpuenv-run"};
  arguments.insert(arguments.end(), command.begin(), command.end());
  return arguments;
}

}  // namespace

std::optional<std::string> find_on_path(const std::string& program, const std::string& path) {
  if (program.find('/') != std::string::npos) return program;
  std::size_t start = 0;
  while (true) {
    const auto colon = path.find(':', start);
    auto directory = path.substr(start, colon - start);
    if (directory.empty()) directory = ".";
    const auto candidate = directory + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string::npos) return std::nullopt;
    start = colon + 1;
  }
}

std::expected<CommandInEnvironment, Error> command_in_environment(const std::filesystem::path& prefix,
                                                                        const std::vector<std::string>& command,
                                                                        const util::EnvLookup& env) {
  const auto changes = activation_changes(prefix, env);
  CommandInEnvironment prepared;
  prepared.warnings = changes.warnings;
  prepared.variables = apply_changes(current_process_environment(), changes);
  const auto& path = prepared.variables.at("PATH");
  if (changes.activate_scripts.empty()) {
    const auto found = find_on_path(command.front(), path);
    if (!found) {
      return std::unexpected(make_error(ErrorKind::command_not_found,
                                        fmt::format("{}: command not found in the environment {} (searched PATH={})",
                                                    command.front(), prefix.string(), path)));
    }
    prepared.program = *found;
    prepared.arguments = command;
  } else {
    prepared.arguments = shell_wrapped(changes.activate_scripts, command, path);
    prepared.program = prepared.arguments.front();
  }
  return prepared;
}

}  // namespace gpuenv::environment
