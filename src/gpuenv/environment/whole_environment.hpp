// Whole environments: copying one (`create --clone`) and deleting one
// (`remove --all`, `env remove`), as conda does both.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/environment/error.hpp"
#include "gpuenv/environment/plan.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::environment {

// create --clone SOURCE (a name, or a path when it holds a '/'): SOURCE's
// installed records as an explicit lockfile names them, so the clone gets
// the same builds and nothing is solved. Errors: SOURCE missing or not an
// environment, a damaged record or one without a URL (the clone would miss
// that package), no package at all.
std::expected<RequestFiles, Error> clone_source(const std::string& source, const util::EnvLookup& env);

// Why `prefix` may not be deleted whole, or nothing: it must be an
// environment (conda-meta/), not frozen (CEP 22) unless `override_frozen`,
// and neither the root prefix, the active environment (CONDA_PREFIX), / nor
// the home directory.
std::optional<Error> refuse_deleting(const std::filesystem::path& prefix, const util::EnvLookup& env,
                                     bool override_frozen);

// The `remove` request that unlinks every package `prefix` records (specs
// empty when it has none); the records that could not be read go to
// `warnings` (their files go with the directory).
ChangeRequest removal_of_every_package(const std::filesystem::path& prefix, bool dry_run,
                                       std::vector<std::string>& warnings);

// Deletes `prefix` with everything left in it (conda's rm_rf); links in it
// are removed, never followed. The error says the packages are gone and
// the directory must be deleted by hand.
std::expected<void, Error> delete_environment_directory(const std::filesystem::path& prefix);

}  // namespace gpuenv::environment
