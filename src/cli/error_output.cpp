#include "error_output.hpp"

#include <fmt/core.h>

#include <cstdio>

#include "solve_output.hpp"

namespace gpuenv::cli {

int report_error(const environment::Error& error, bool json) {
  // The message was masked when the error was made (make_error); an
  // explanation names packages, never channel secrets.
  if (json) {
    print_json_failure(error.message, error.unsolvable ? error.unsolvable->lines() : std::vector<std::string>{},
                       environment::conda_exception_name(error.kind));
  } else if (error.unsolvable) {
    print_unsolvable(*error.unsolvable);
  } else {
    std::fflush(stdout);
    fmt::print(stderr, "gpuenv: error: {}\n", error.message);
  }
  return environment::exit_status(error.kind);
}

int report_usage_error(const std::string& message, bool json) {
  return report_error(environment::make_error(environment::ErrorKind::usage, message), json);
}

void print_notes(const std::vector<std::string>& notes, const std::vector<std::string>& warnings) {
  for (const auto& note : notes) fmt::print(stderr, "gpuenv: {}\n", note);
  for (const auto& warning : warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
}

}  // namespace gpuenv::cli
