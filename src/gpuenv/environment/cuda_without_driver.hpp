// A plan that brings CUDA packages onto a machine without a usable NVIDIA
// driver: nothing stops it (a package may constrain `__cuda` without
// needing it, and conda-forge's CUDA builds do), so conda, mamba and pixi
// install a GPU stack that cannot run without a word. gpuenv says so once.
#pragma once

#include <optional>
#include <string>

#include "gpuenv/environment/plan.hpp"

namespace gpuenv::environment {

// Whether `record` is a CUDA package: it needs or constrains `__cuda`, or
// needs CUDA's version marker packages (cuda-version, cudatoolkit).
bool is_cuda_package(const specs::PackageRecord& record);

// One line for the user when `plan` links CUDA packages and driver detection
// ran and found no usable driver (not when CONDA_OVERRIDE_CUDA decided, and
// not for another platform's solve): which packages, why the driver is
// missing, what to do. nullopt otherwise.
std::optional<std::string> cuda_without_driver_note(const Plan& plan);

}  // namespace gpuenv::environment
