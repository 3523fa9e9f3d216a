// The one error type of the package module.
#pragma once

#include <stdexcept>
#include <string>

namespace gpuenv::package {

// Thrown when a package archive or its metadata cannot be used: a corrupt or
// truncated archive, a member that would land outside the target directory,
// metadata that is not valid JSON, a download whose hash does not match.
// The message names the file (or URL) and says what to do about it, e.g.
//   refusing to extract /pkgs/evil-1.0-0.tar.bz2: member '../../etc/passwd'
//   leaves the target directory; the package is malformed or malicious,
//   report it to the channel that serves it
class PackageError : public std::runtime_error {
 public:
  explicit PackageError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace gpuenv::package
