// Running a build's child processes (the script, `patch`) with a chosen
// environment and working directory, their stdout and stderr merged and
// streamed to a callback as they come, and the last lines kept for the
// error message when the process fails.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::build {

struct ProcessRequest {
  std::vector<std::string> argv;         // argv[0] is found through the PATH of `environment`
  std::vector<std::string> environment;  // "NAME=value", the child's whole environment
  std::filesystem::path working_directory;
  // Gets the output as it arrives, in pieces of any size.
  std::function<void(std::string_view)> on_output;
  // When set, asked about once a second while the child runs: a non-empty
  // answer (why) kills the child, and becomes the result's `stopped`.
  std::function<std::string()> stop_if;
};

struct ProcessResult {
  bool started = false;
  std::string start_error;  // why it did not start
  int exit_code = -1;       // 128 + signal when killed by one
  std::string output_tail;  // the last kTailLines lines of output
  std::string stopped;      // why stop_if had the child killed; empty when it was not

  bool succeeded() const { return started && exit_code == 0; }
};

inline constexpr std::size_t kTailLines = 30;

ProcessResult run_process(const ProcessRequest& request);

// The executable `program` names on `path` (colon-separated), or empty.
std::string find_on_path(const std::string& program, const std::string& path);

// The `name=value` entries of this process's environment.
std::vector<std::string> current_environment();

}  // namespace gpuenv::build
