// One command inside a root filesystem, isolated the way a container would
// be without needing an engine: `unshare --mount --pid --fork` gives it its
// own mount table and process tree (nothing it mounts or starts outlives it
// or shows on the host), then a fixed shell script bind-mounts what the
// command may see, mounts /proc, a read-only /sys (as container engines
// do: UCX finds its network interfaces there), a tmpfs /tmp and a minimal
// /dev, makes the root read-only when asked, and `chroot`s into it with
// `env -i` and only the variables given. Every path and value reaches the
// script as a positional argument, never as script text, so no input can
// become shell syntax.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"

namespace gpuenv::ci {

struct BindMount {
  std::filesystem::path source;  // on the host: a directory or a file
  std::string target;            // absolute, inside the root
  bool read_only = true;
};

struct ChrootInvocation {
  std::filesystem::path root;  // absolute
  // True for builds: the cached rootfs stays as it was made. False while
  // the rootfs itself is being made (apt writes into it).
  bool read_only_root = true;
  std::vector<BindMount> mounts;
  std::vector<std::string> environment;  // NAME=value: the command's whole environment
  std::string working_directory = "/";   // inside the root
  std::vector<std::string> argv;         // argv[0] found on the environment's PATH
};

// The host command line (unshare ... sh -c SCRIPT ...) for `invocation`.
// Refused: a relative root or target, a target with `..`, an environment
// entry that is not NAME=value, an empty argv or an argv[0] holding '='
// (env would read it as a variable).
std::expected<std::vector<std::string>, CiError> chroot_command(const ChrootInvocation& invocation);

// `argv` with its stdout sent to `stdout_file` (inside the root), through a
// fixed script: `gpuenv build --json`'s document stays apart from the log
// that streams to stderr.
std::vector<std::string> with_stdout_to(const std::string& stdout_file, const std::vector<std::string>& argv);

}  // namespace gpuenv::ci
