// The one error type of the environment layer: what every command, the
// builder and the CI runner get back from settings, plan and apply
// (docs/decisions/0001-errors.md). It carries what the user needs: the kind
// (which decides the exit status and conda's --json exception name), the
// message (naming the input and what to do), and for an unsatisfiable
// request the solver's explanation.
#pragma once

#include <optional>
#include <string>

#include "gpuenv/solver/solver.hpp"

namespace gpuenv::environment {

enum class ErrorKind {
  usage,                  // the request itself is wrong (no package named, bad name): exit 2
  configuration,          // a .condarc setting, a pin, an environment file
  invalid_spec,           // a package spec that does not parse
  not_an_environment,     // the prefix is not one, or cannot take a new one
  no_environment,         // list/run/activate/export/doctor of an environment that is not there
  command_not_found,      // `run` of a command the environment does not have: exit 127, as a shell
  package_not_installed,  // `update` of a package the environment lacks
  package_not_found,      // `remove` of a package the environment lacks
  no_match,               // `search`: no record in the channels matches
  channel,                // a channel could not be resolved, fetched or read
  unsatisfiable,          // no set of packages satisfies the request
  transaction,            // fetching, extracting or linking failed (the prefix is as it was)
};

struct Error {
  ErrorKind kind = ErrorKind::configuration;
  std::string message;  // channel tokens and passwords masked
  // Present for ErrorKind::unsatisfiable: the conflict, explained.
  std::optional<solver::Unsolvable> unsolvable;
};

// `message` with any channel secret masked.
Error make_error(ErrorKind kind, std::string message);

// The exit status a command ends with for `kind` (2 for usage, 127 for a
// command not found, as a shell; else 1).
int exit_status(ErrorKind kind);

// conda's exception class for `kind`, as its --json failure output names it
// ("CondaValueError", "PackagesNotFoundError", "UnsatisfiableError", ...).
const char* conda_exception_name(ErrorKind kind);

}  // namespace gpuenv::environment
