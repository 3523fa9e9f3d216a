// Asking rattler-build (py-rattler-build) through a Python helper in this
// directory: the differential tests send it a JSON list of requests on
// stdin and read a JSON list of answers, one per request.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/rattler_helper.hpp"

namespace gpuenv::recipe::testing {

inline std::filesystem::path testdata() {
  const char* configured = std::getenv("GPUENV_TESTDATA");
  return configured != nullptr ? configured : GPUENV_DEFAULT_TESTDATA;
}

// `helper`'s answers to `requests`; null when the tools are missing or did
// not answer (`why` says what happened, for GTEST_SKIP).
inline nlohmann::json ask_rattler_helper(const std::string& helper, const nlohmann::json& requests, std::string& why) {
  return gpuenv::testing::ask_python_helper("tests/unit/recipe/" + helper, requests, true, why);
}

}  // namespace gpuenv::recipe::testing
