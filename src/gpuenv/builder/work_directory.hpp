// Where a variant is built: a fixed path, the same whatever the output
// directory, so that what compilers write of the paths they were given is
// the same and two builds of the same inputs give the same bytes wherever
// their output goes. nvcc hashes the source file's absolute, resolved path
// into every kernel's module id (cudafe++ --orig_src_path_name), and no flag
// maps it; the host prefix placeholder recorded in a package is a path of
// the work directory too. conda-build and rattler-build build under the
// output directory, with a timestamp in the name, so their bytes depend on
// both.
//
// The root is $GPUENV_BUILD_ROOT, else /tmp/gpuenv-build-<uid>: made 0700,
// and refused unless it is a real directory this user owns that nobody else
// can write (/tmp is shared; a planted directory or link must not receive a
// build). Two builds of the same package at once take turns on a lock.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/prefix/file_lock.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::build {

struct WorkDirectory {
  std::filesystem::path path;  // <root>/<stem>; not made yet
  prefix::FileLock lock;       // held while the build runs
};

// The build root `env` names, checked (and made when missing).
std::expected<std::filesystem::path, BuildError> build_root(const util::EnvLookup& env);

// The work directory of the package `stem` (<name>-<version>-<build>) under
// the build root, its lock taken (waiting for another build of the same
// package; `waiting` is told once when it must wait).
std::expected<WorkDirectory, BuildError> claim_work_directory(const std::string& stem, const util::EnvLookup& env,
                                                              const prefix::FileLock::WaitNotice& waiting = {});

}  // namespace gpuenv::build
