// What the chroot runner checks inside an image before it builds: that the
// gpuenv binary bind-mounted in finds every shared library it needs (the
// image's system_packages must list them), and that the nvcc on the build's
// PATH is the variant's CUDA version, so nothing from the host or another
// toolkit leaks into a build. Pure functions of the commands' output.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"

namespace gpuenv::ci {

// The libraries `ldd` output reports as "not found", in order.
std::vector<std::string> missing_libraries(std::string_view ldd_output);

// Fails naming the image and the missing libraries, and says to add their
// packages to the image's system_packages.
std::expected<void, CiError> check_shared_libraries(std::string_view ldd_output, std::string_view image);

// Fails unless `nvcc --version` output reports release `wanted` ("13.0").
std::expected<void, CiError> check_nvcc_release(std::string_view nvcc_version_output, std::string_view wanted,
                                                std::string_view image);

// The first of `channels` (local, indexed channel directories: the output
// channel, `-c` directories) holding `compiler_package` (the package a
// variant's compiler('cuda') renders to: cuda-nvcc_linux-64) at version
// `wanted` (major.minor, as `=12.4` matches). A build whose variant asks for
// another CUDA than the image's nvcc still builds with its own CUDA version
// when such a channel gives its build environment that compiler (recipes/
// cuda-nvcc: NVIDIA's binaries, which run on any glibc). Unreadable
// channels count as not holding it.
std::optional<std::filesystem::path> channel_with_cuda_compiler(const std::vector<std::filesystem::path>& channels,
                                                                std::string_view compiler_package,
                                                                std::string_view wanted);

// The value of KEY in `gpuenv build --variant` arguments (KEY=VALUE), or
// empty.
std::string variant_value(const std::vector<std::string>& variant_arguments, std::string_view key);

}  // namespace gpuenv::ci
