// The machine a CUDA build's environments are solved for. A CUDA variant's
// package needs __cuda, so on a machine without an NVIDIA driver -- every
// CI machine -- its test environment could not even be created, nor the
// host environment of a recipe that builds on it. conda-forge's CI exports
// CONDA_OVERRIDE_CUDA=<cuda_compiler_version> for CUDA builds; the builder
// does the same for a CUDA variant's build, host and test environments (and
// its script's environment), `gpuenv test` for the test environments, and
// only when no driver was detected and the user set no override. The tests
// still run for real: they must cope with no GPU (the stencil example's
// check exits 2).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "gpuenv/environment/settings.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

// The variant's cuda_compiler_version ("13.0"; absent or "None" for a CPU
// build) as the package records it in info/recipe/variant_config.yaml.
// A file that is missing, unreadable or too large is no CUDA version.
std::optional<std::string> package_cuda_compiler_version(const std::filesystem::path& package_root);

// The variant's cuda_compiler_version, as the same text.
std::optional<std::string> variant_cuda_compiler_version(const recipe::RenderedVariant& variant);

// The CUDA version to solve a CUDA build's environments for when this machine cannot say:
// `cuda_compiler_version` when it is one (not "None"), no driver gives
// __cuda and CONDA_OVERRIDE_CUDA is unset.
std::optional<std::string> cuda_override_without_driver(const std::optional<std::string>& cuda_compiler_version,
                                              const environment::Settings& settings);

// `settings` whose environment answers CONDA_OVERRIDE_CUDA with `version`.
environment::Settings settings_with_cuda_override(const environment::Settings& settings, const std::string& version);

}  // namespace gpuenv::build
