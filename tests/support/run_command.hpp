// Running the built gpuenv binary (or any program) the way a user would, and
// capturing what it printed.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpuenv::testing {

struct CommandOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string shell_quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') quoted += "'\\''";
    else quoted += c;
  }
  return quoted + "'";
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Runs `program args...` through /bin/sh with extra environment assignments
// ("NAME=value"; "-NAME" unsets NAME), capturing stdout and stderr separately.
inline CommandOutput run_program(const std::string& program, const std::vector<std::string>& args,
                                 const std::vector<std::string>& env = {}) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpuenv-test-" + std::to_string(::getpid()) + "-" +
                    std::to_string(std::rand()));
  std::filesystem::create_directories(dir);
  std::string command;
  for (const auto& assignment : env) {
    if (!assignment.empty() && assignment.front() == '-') {
      command += "unset " + assignment.substr(1) + "; ";
    } else {
      command += "export " + shell_quote(assignment) + "; ";
    }
  }
  command += shell_quote(program);
  for (const auto& arg : args) command += " " + shell_quote(arg);
  command += " >" + shell_quote((dir / "out").string()) + " 2>" + shell_quote((dir / "err").string());
  const int status = std::system(("(" + command + ")").c_str());
  CommandOutput result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(dir / "out");
  result.err = read_file(dir / "err");
  std::filesystem::remove_all(dir);
  return result;
}

inline CommandOutput run_gpuenv(const std::vector<std::string>& args,
                                const std::vector<std::string>& env = {}) {
  return run_program(GPUENV_BINARY, args, env);
}

// run_gpuenv under `ulimit -v` (KiB of address space) and `ulimit -t` (CPU
// seconds): for tests of inputs that would make an unfixed gpuenv eat the
// machine's memory or spin forever.
inline CommandOutput run_gpuenv_bounded(const std::vector<std::string>& args, const std::vector<std::string>& env,
                                        std::size_t address_space_kib, unsigned cpu_seconds = 30) {
  std::vector<std::string> shell_args = {
      "-c", "ulimit -v " + std::to_string(address_space_kib) + " && ulimit -t " + std::to_string(cpu_seconds) +
                " && exec \"$0\" \"$@\"",
      GPUENV_BINARY};
  shell_args.insert(shell_args.end(), args.begin(), args.end());
  return run_program("/bin/sh", shell_args, env);
}

}  // namespace gpuenv::testing
