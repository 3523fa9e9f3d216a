// test_package(request, observer): the tests a package carries
// (info/tests/tests.yaml, test_files.hpp) run against the package file --
// what `gpuenv build` does before a package may enter the output channel,
// and what `gpuenv test PKG_FILE` does for any package.
//
// Each test that needs an environment gets a fresh one, created through
// environment::plan/apply like `gpuenv create`, from the package's own
// channel (the staging directory holding it) first, then the request's
// channels: the package pinned exactly (name ==version build) plus the
// test's requirements.
//   script            the lines run by bash -e in the activated environment
//                     (as `gpuenv run` activates: PATH, CONDA_PREFIX,
//                     env_vars, activate.d), PREFIX set to it, in a
//                     directory holding the test's files; build
//                     requirements in a second environment whose bin/ is on
//                     PATH after the test environment's
//   python            `python -c "import M"` per module with the
//                     environment's python (python, and pip for pip_check,
//                     added to the environment), then `python -m pip check`
//   package_contents  package_contents_check.hpp, on the package's paths
//   downstream        the named package is installed together with this one
//                     and its own tests (from its info/tests) run with this
//                     package in every test environment; a downstream that
//                     installs alone but not with this package is skipped
//                     with a warning (it is not compatible with this version,
//                     as conda-build and rattler-build skip it); one that
//                     cannot be installed at all fails
// Output is streamed to the observer and appended to the log file.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/build_variant.hpp"

namespace gpuenv::build {

struct PackageTestRequest {
  std::filesystem::path package_file;  // <channel_dir>/<subdir>/<file>.conda
  // An indexed channel holding package_file; empty: one is made in work_dir
  // (`gpuenv test` of a package file from anywhere).
  std::filesystem::path channel_dir;
  std::filesystem::path work_dir;      // created fresh; the environments go here
  const environment::Settings* settings = nullptr;  // channels searched after channel_dir
  std::string build_platform;          // what a noarch package is tested on
  std::filesystem::path log_file;      // appended to
  // Specs added to every test environment: when a downstream package's
  // tests run, the upstream package under test, pinned exactly. A
  // downstream's own downstream tests are not followed.
  std::vector<std::string> also_install;
};

struct PackageTestReport {
  std::size_t tests = 0;  // run, all passed
};

// The first failing test fails it all (kind test), naming the test, what
// failed and the log; the work directory then stays for inspection.
std::expected<PackageTestReport, BuildError> test_package(const PackageTestRequest& request,
                                                          BuildObserver& observer);

// `gpuenv test PKG_FILE`: a package file from anywhere, tested in a fresh
// temporary directory, removed after a pass and kept (log_file names it)
// after a failure.
struct PackageFileTest {
  std::expected<PackageTestReport, BuildError> report;
  std::filesystem::path log_file;  // empty after a pass
};
PackageFileTest test_package_file(const std::filesystem::path& package_file, const environment::Settings& settings,
                                  const std::string& build_platform, BuildObserver& observer);

}  // namespace gpuenv::build
