#include "gpuenv/environment/error.hpp"

#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::environment {

Error make_error(ErrorKind kind, std::string message) {
  return Error{kind, specs::mask_credentials(message), std::nullopt};
}

int exit_status(ErrorKind kind) {
  if (kind == ErrorKind::usage) return 2;
  if (kind == ErrorKind::command_not_found) return 127;
  return 1;
}

const char* conda_exception_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::package_not_installed: return "PackageNotInstalledError";
    case ErrorKind::package_not_found: return "PackageNotFoundError";
    case ErrorKind::no_match: return "PackagesNotFoundError";
    case ErrorKind::invalid_spec: return "InvalidMatchSpec";
    case ErrorKind::channel: return "CondaHTTPError";
    case ErrorKind::unsatisfiable: return "UnsatisfiableError";
    case ErrorKind::transaction: return "CondaError";
    case ErrorKind::no_environment: return "EnvironmentLocationNotFound";
    case ErrorKind::command_not_found: return "CondaError";
    case ErrorKind::usage:
    case ErrorKind::configuration:
    case ErrorKind::not_an_environment: return "CondaValueError";
  }
  return "CondaError";
}

}  // namespace gpuenv::environment
