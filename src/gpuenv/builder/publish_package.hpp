// The last step of a build: the package, written to a staging channel
// (<work>/staging/<subdir>/, outside the output channel), is tested there
// (package_tests.hpp) and only then moved into <output_dir>/<subdir>/. A
// failing test keeps it out of the output channel: it stays in the staging
// directory for inspection.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/build_variant.hpp"

namespace gpuenv::build {

struct Publication {
  std::filesystem::path staged_package;  // <staging_dir>/<subdir>/<file>
  std::filesystem::path staging_dir;     // a channel directory of its own
  std::filesystem::path final_package;   // <output_dir>/<subdir>/<file>
  std::filesystem::path test_dir;        // the test environments
  std::filesystem::path log_file;
  const environment::Settings* settings = nullptr;  // the output channel already first
  std::string build_platform;
  bool run_tests = true;
};

// The number of tests run (all passed).
std::expected<std::size_t, BuildError> test_and_publish(const Publication& publication, BuildObserver& observer);

}  // namespace gpuenv::build
