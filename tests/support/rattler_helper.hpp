// Asking rattler-build (py-rattler-build, installed by scripts/setup.sh into
// build/deps/test-tools) through a Python helper in this directory: the
// differential tests send it a JSON list of requests on stdin and read a
// JSON list of answers, one per request.
#pragma once

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpuenv::recipe::testing {

inline std::string test_python() {
  if (const char* configured = std::getenv("GPUENV_TEST_PYTHON"); configured != nullptr && *configured != '\0') {
    return configured;
  }
  return GPUENV_SOURCE_DIR "/build/deps/test-tools/bin/python";
}

inline std::filesystem::path testdata() {
  const char* configured = std::getenv("GPUENV_TESTDATA");
  return configured != nullptr ? configured : GPUENV_DEFAULT_TESTDATA;
}

// `helper`'s answers to `requests`; null when the tools are missing or did
// not answer (`why` says what happened, for GTEST_SKIP).
inline nlohmann::json ask_rattler_helper(const std::string& helper, const nlohmann::json& requests, std::string& why) {
  namespace fs = std::filesystem;
  const std::string python = test_python();
  if (!fs::exists(python)) {
    why = python + " missing: scripts/setup.sh installs py-rattler-build there";
    return nullptr;
  }
  const fs::path script = fs::path(GPUENV_SOURCE_DIR) / "tests/unit/recipe" / helper;
  const fs::path scratch = fs::temp_directory_path() / ("gpuenv-recipe-differential-" + std::to_string(::getpid()));
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
  if (!answers.is_array() || answers.size() != requests.size()) {
    why = "rattler-build did not answer (is py-rattler-build installed in " + python + "?): " + output.substr(0, 2000);
    return nullptr;
  }
  return answers;
}

}  // namespace gpuenv::recipe::testing
