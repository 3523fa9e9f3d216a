// How every command shows a failure: one line on stderr ("gpuenv: error:
// ..."), or conda's --json failure shape on stdout; an unsatisfiable
// request with its explanation. The exit status is the error kind's.
#pragma once

#include <string>
#include <vector>

#include "gpuenv/environment/error.hpp"

namespace gpuenv::cli {

// Prints `error` and returns the exit status for it.
int report_error(const environment::Error& error, bool json = false);

// A usage mistake found by the CLI itself (exit 2, CondaValueError).
int report_usage_error(const std::string& message, bool json = false);

// What a library call did on the side, on stderr ("gpuenv: ..." and
// "gpuenv: warning: ...").
void print_notes(const std::vector<std::string>& notes, const std::vector<std::string>& warnings);

}  // namespace gpuenv::cli
