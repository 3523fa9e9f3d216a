// Asking rattler (py-rattler and py-rattler-build, installed by
// scripts/setup.sh into build/deps/test-tools) through a Python helper
// script: the differential tests send it a JSON document of requests on
// stdin and read a JSON answer. Tests skip, saying why, when the tools are
// missing.
#pragma once

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpuenv::testing {

inline std::string test_python() {
  if (const char* configured = std::getenv("GPUENV_TEST_PYTHON"); configured != nullptr && *configured != '\0') {
    return configured;
  }
  return GPUENV_SOURCE_DIR "/build/deps/test-tools/bin/python";
}

// The answer of the helper `script` (a path under the source tree, e.g.
// "tests/unit/recipe/rattler_render.py") to `requests`; null when the tools
// are missing or did not answer (`why` says what happened, for GTEST_SKIP).
// When `answers_per_request`, the answer must be a list as long as `requests`;
// otherwise any JSON object (which may report the tool's refusal).
inline nlohmann::json ask_python_helper(const std::string& script_path, const nlohmann::json& requests,
                                        bool answers_per_request, std::string& why) {
  namespace fs = std::filesystem;
  const std::string python = test_python();
  if (!fs::exists(python)) {
    why = python + " missing: scripts/setup.sh installs py-rattler and py-rattler-build there";
    return nullptr;
  }
  const fs::path script = fs::path(GPUENV_SOURCE_DIR) / script_path;
  const fs::path scratch = fs::temp_directory_path() / ("gpuenv-rattler-differential-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  const fs::path request = scratch / "request.json";
  std::ofstream(request) << requests.dump();
  std::string output;
  const std::string command = "'" + python + "' '" + script.string() + "' < '" + request.string() + "' 2>/dev/null";
  if (FILE* pipe = ::popen(command.c_str(), "r"); pipe != nullptr) {
    std::array<char, 4096> buffer{};
    while (const auto got = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), got);
    ::pclose(pipe);
  }
  fs::remove_all(scratch);
  nlohmann::json answers;
  try {
    answers = nlohmann::json::parse(output);
  } catch (const nlohmann::json::exception&) {
  }
  const bool answered = answers_per_request ? answers.is_array() && answers.size() == requests.size()
                                            : answers.is_object();
  if (!answered) {
    why = script_path + " did not answer (are py-rattler and py-rattler-build installed in " + python +
          "?): " + output.substr(0, 2000);
    return nullptr;
  }
  return answers;
}

}  // namespace gpuenv::testing
