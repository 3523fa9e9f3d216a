// The output directory as a channel: build, host and test environments see
// <output_dir> (and, for the tests, the staging channel holding the package
// under test) before the configured channels, so a recipe can depend on a
// package built earlier in the same run or in an earlier one.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/environment/settings.hpp"

namespace gpuenv::build {

// Makes `channel_dir` a channel that can be solved from: created when
// missing, `subdirs` (and noarch) present, and indexed (a fresh or empty
// output directory gets empty repodata, an existing one picks up packages
// added or removed since). Index problems (a damaged package file) are
// returned as warnings, not failures: the rest of the channel still works.
std::expected<std::vector<std::string>, BuildError> prepare_local_channel(const std::filesystem::path& channel_dir,
                                                                          const std::vector<std::string>& subdirs);

// `settings` with `channel_dirs` searched first, in the order given.
environment::Settings with_local_channels(environment::Settings settings,
                                          const std::vector<std::filesystem::path>& channel_dirs);

}  // namespace gpuenv::build
