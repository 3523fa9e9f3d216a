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

#include "activation.hpp"
#include "gpuenv/environment/environment_name.hpp"
#include "command.hpp"
#include "installed_environment.hpp"
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

int fail(const std::string& message, int exit_code) {
  std::fflush(stdout);
  fmt::print(stderr, "gpuenv: error: {}\n", message);
  return exit_code;
}

bool is_executable_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

// execvp's search, against the PATH the command will have.
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

// The activate.d scripts are shell code: a shell sources them, then execs
// the command. The command's words travel as the shell's arguments, never
// through its parser, so they arrive exactly as given. bash hides them from
// the scripts (which, sourced, would otherwise see them as "$@"); a plain
// POSIX shell has no arrays, so there the scripts see them.
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
    return fail("say which command to run: gpuenv run -p PREFIX -- COMMAND [ARGS...]", 2);
  }
  const auto env = util::process_environment();
  const auto prefix = resolve_prefix(arguments.where, env, WhenNoPrefixGiven::use_active_prefix);
  if (!prefix) return fail(prefix.error(), 2);
  if (auto usable = environment::check_prefix_for_path(*prefix); !usable) return fail(usable.error(), 2);
  if (auto checked = check_environment(*prefix); !checked) return fail(checked.error(), 1);
  if (auto warning = settle_interrupted_transaction(*prefix)) fmt::print(stderr, "gpuenv: warning: {}\n", *warning);

  const auto changes = activation_changes(*prefix, env);
  for (const auto& warning : changes.warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
  const auto variables = apply_changes(current_process_environment(), changes);
  const auto& path = variables.at("PATH");

  if (!arguments.working_directory.empty() && ::chdir(arguments.working_directory.c_str()) != 0) {
    return fail(fmt::format("cannot change to the directory {} ({}); give an existing directory to --cwd",
                            arguments.working_directory, std::strerror(errno)),
                1);
  }

  std::vector<std::string> argv = arguments.command;
  std::string program;
  if (changes.activate_scripts.empty()) {
    const auto found = find_on_path(arguments.command.front(), path);
    if (!found) {
      return fail(fmt::format("{}: command not found in the environment {} (searched PATH={})",
                              arguments.command.front(), prefix->string(), path),
                  exit_not_found);
    }
    program = *found;
  } else {
    argv = shell_wrapped(changes.activate_scripts, arguments.command, path);
    program = argv.front();
  }

  std::vector<std::string> environment_entries;
  for (const auto& [name, value] : variables) environment_entries.push_back(name + "=" + value);
  std::vector<char*> environment_pointers;
  for (auto& entry : environment_entries) environment_pointers.push_back(entry.data());
  environment_pointers.push_back(nullptr);
  std::vector<char*> argument_pointers;
  for (auto& argument : argv) argument_pointers.push_back(argument.data());
  argument_pointers.push_back(nullptr);

  std::fflush(stdout);
  std::fflush(stderr);
  ::execve(program.c_str(), argument_pointers.data(), environment_pointers.data());
  const int error = errno;
  return fail(fmt::format("cannot run {}: {}", program, std::strerror(error)),
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
      run = [error = words.error()] { return fail(error, 2); };
      return;
    }
    arguments->command = std::move(*words);
    run = [arguments] { return run_in_environment(*arguments); };
  });
}

}  // namespace gpuenv::cli
