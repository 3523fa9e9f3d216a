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

}  // namespace gpuenv::testing
