// `gpuenv run -p PREFIX -- COMMAND ARGS...`: runs a command inside an
// environment without activating it in the user's shell, like `conda run`
// and `micromamba run`. The command gets the activated environment (see
// activation.hpp) and replaces gpuenv (exec), so its exit status, signals
// and terminal are its own.
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <expected>
#include <filesystem>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "gpuenv/environment/command_in_environment.hpp"
#include "gpuenv/environment/environment_name.hpp"
#include "command.hpp"
#include "error_output.hpp"
#include "gpuenv/environment/installed_environment.hpp"
#include "gpuenv/util/subprocess.hpp"
#include "prefix_arguments.hpp"

namespace gpuenv::cli {
namespace {

struct RunArguments {
  PrefixArguments where;
  std::string working_directory;
  std::vector<std::string> command;
  std::string unused_positional;
};

// The shell's exit status for a command that cannot be found / run.
constexpr int exit_not_found = 127;
constexpr int exit_not_executable = 126;

// After the environment is ready, only the system can fail the command:
// the shell's statuses, so scripts see what a shell would give them.
int exec_failure(const std::string& message, int exit_code) {
  std::fflush(stdout);
  fmt::print(stderr, "gpuenv: error: {}\n", message);
  return exit_code;
}

// The words CLI11 left over: the command, in order and untouched.
std::expected<std::vector<std::string>, std::string> command_words(std::vector<std::string> words) {
  if (!words.empty() && words.front() == "--") {
    words.erase(words.begin());
  } else if (!words.empty() && words.front().starts_with("-")) {
    return std::unexpected(fmt::format("gpuenv run has no option {}; put the command after --, as in "
                                       "gpuenv run -p PREFIX -- COMMAND ARGS...",
                                       words.front()));
  }
  return words;
}

int run_in_environment(const RunArguments& arguments) {
  if (arguments.command.empty()) {
    return report_usage_error("say which command to run: gpuenv run -p PREFIX -- COMMAND [ARGS...]");
  }
  const auto env = util::process_environment();
  const auto opened =
      environment::open_environment(prefix_choice(arguments.where), env,
                                    environment::WhenNoPrefixGiven::use_active_prefix, environment::PrefixUse::put_on_path);
  if (!opened) return report_error(opened.error());
  print_notes(opened->notes, opened->warnings);

  if (!arguments.working_directory.empty() && ::chdir(arguments.working_directory.c_str()) != 0) {
    return exec_failure(fmt::format("cannot change to the directory {} ({}); give an existing directory to --cwd",
                            arguments.working_directory, std::strerror(errno)),
                1);
  }
  auto prepared = environment::command_in_environment(opened->prefix, arguments.command, env);
  if (!prepared) return report_error(prepared.error());
  print_notes({}, prepared->warnings);
  const auto& program = prepared->program;

  std::fflush(stdout);
  std::fflush(stderr);
  const int error = util::replace_process(program, std::move(prepared->arguments), prepared->variables);
  return exec_failure(fmt::format("cannot run {}: {}", program, std::strerror(error)),
              error == ENOENT ? exit_not_found : exit_not_executable);
}

}  // namespace

void add_run_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<RunArguments>();
  auto* sub = app.add_subcommand("run", "Run a command inside an environment (activated, as conda run does)");
  add_prefix_options(sub, arguments->where);
  sub->add_option("--cwd", arguments->working_directory, "Run the command in this directory");
  // The command's words must reach it in order and untouched, --help and
  // -p included. prefix_command() makes CLI11 stop at the command's first
  // word and leave the rest over; a positional that refuses every word
  // keeps a `--` inside this subcommand (CLI11 would hand the words after
  // it to the top level, which refuses them) and shows in --help.
  sub->prefix_command();
  sub->validate_positionals();
  sub->add_option("command", arguments->unused_positional, "The command and its arguments")
      ->check(CLI::Validator([](std::string&) { return std::string("left over"); }, "", ""));
  sub->footer("Example: gpuenv run -p ./env -- python -c 'import sys; print(sys.prefix)'");
  sub->callback([&run, arguments, sub] {
    auto words = command_words(sub->remaining());
    if (!words) {
      run = [error = words.error()] { return report_usage_error(error); };
      return;
    }
    arguments->command = std::move(*words);
    run = [arguments] { return run_in_environment(*arguments); };
  });
}

}  // namespace gpuenv::cli
