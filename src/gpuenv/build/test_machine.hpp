// The machine a CUDA build's tests are solved for. A CUDA variant's package
// needs __cuda, so on a machine without an NVIDIA driver -- every CI machine
// -- its test environment could not even be created. conda-forge's CI
// exports CONDA_OVERRIDE_CUDA=<cuda_compiler_version> for CUDA builds; the
// builder does the same for the test environments only, and only when no
// driver was detected and the user set no override. The tests still run
// for real: they must cope with no GPU (the stencil example's check exits 2).
#pragma once

#include <optional>
#include <string>

#include "gpuenv/environment/settings.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

// The CUDA version to solve the tests for when this machine cannot say:
// the variant's cuda_compiler_version ("13.0"), when the variant has one,
// no driver gives __cuda and CONDA_OVERRIDE_CUDA is unset.
std::optional<std::string> test_cuda_override(const recipe::RenderedVariant& variant,
                                              const environment::Settings& settings);

// `settings` whose environment answers CONDA_OVERRIDE_CUDA with `version`.
environment::Settings settings_with_cuda_override(const environment::Settings& settings, const std::string& version);

}  // namespace gpuenv::build
