// How a command runs inside an environment without activating it in the
// user's shell (`gpuenv run`, `conda run`; the builder's scripts and tests
// too): the variables activation sets (activation.hpp), and when the
// environment has activate.d scripts, a shell that sources them and then
// execs the command. The command's words travel as the shell's arguments,
// never through its parser, so they arrive exactly as given.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/environment/error.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::environment {

struct CommandInEnvironment {
  std::string program;  // the file to exec
  std::vector<std::string> arguments;  // argv, program's name first
  std::map<std::string, std::string> variables;  // the whole environment it gets
  std::vector<std::string> warnings;  // from activation (env_vars that cannot be variables, ...)
};

// Fails only when the command is not found on the environment's PATH
// (without activate.d scripts; with them, the shell reports it, exit 127).
std::expected<CommandInEnvironment, Error> command_in_environment(const std::filesystem::path& prefix,
                                                                        const std::vector<std::string>& command,
                                                                        const util::EnvLookup& env);

// execvp's search for `program`, against `path` (a PATH value).
std::optional<std::string> find_on_path(const std::string& program, const std::string& path);

}  // namespace gpuenv::environment
