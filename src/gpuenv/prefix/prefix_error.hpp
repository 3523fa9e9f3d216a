// The one error type of the prefix module.
#pragma once

#include <stdexcept>
#include <string>

namespace gpuenv::prefix {

// Thrown when a prefix or the package cache cannot be changed as asked: a
// failed link (rolled back before this is thrown), a path conflict the
// options forbid, a lock that cannot be taken, a damaged conda-meta record.
// The message says what happened to the prefix and what to do next.
class PrefixError : public std::runtime_error {
 public:
  explicit PrefixError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace gpuenv::prefix
