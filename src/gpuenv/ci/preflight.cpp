#include "gpuenv/ci/preflight.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <sstream>

#include "gpuenv/builder/cuda_toolkit.hpp"
#include "gpuenv/ci/channel_check.hpp"

namespace gpuenv::ci {

std::vector<std::string> missing_libraries(std::string_view ldd_output) {
  std::vector<std::string> missing;
  std::istringstream stream{std::string(ldd_output)};
  for (std::string line; std::getline(stream, line);) {
    // "\tlibfmt.so.9 => not found"
    if (line.find("=> not found") == std::string::npos) continue;
    const auto start = line.find_first_not_of(" \t");
    const auto end = line.find(' ', start);
    missing.push_back(line.substr(start, end - start));
  }
  return missing;
}

std::expected<void, CiError> check_shared_libraries(std::string_view ldd_output, std::string_view image) {
  const auto missing = missing_libraries(ldd_output);
  if (missing.empty()) return {};
  return std::unexpected(CiError{
      CiError::Kind::inconsistent, std::string(image),
      fmt::format("image {}: the gpuenv binary does not find {} there; add the Debian packages that provide them "
                  "to system_packages in ci-images/{}/image.yaml (`dpkg -S` on a Debian 12 machine names them)",
                  image, fmt::join(missing, ", "), image)});
}

std::expected<void, CiError> check_nvcc_release(std::string_view nvcc_version_output, std::string_view wanted,
                                                std::string_view image) {
  const auto found = build::nvcc_release(nvcc_version_output);
  if (found && *found == wanted) return {};
  return std::unexpected(
      CiError{CiError::Kind::inconsistent, std::string(image),
              fmt::format("image {}: the variant needs CUDA {}, but nvcc on the build's PATH reports {}; the variant "
                          "builds only with its own CUDA version's nvcc: pick the image for it, fix the image's "
                          "cuda section, or give the job a channel (-c DIR, or the output channel) holding the "
                          "compiler package of CUDA {} (cuda-nvcc_linux-64 ={}, recipes/cuda-nvcc)",
                          image, wanted, found ? "release " + *found : "no release", wanted, wanted)});
}

std::optional<std::filesystem::path> channel_with_cuda_compiler(const std::vector<std::filesystem::path>& channels,
                                                                std::string_view compiler_package,
                                                                std::string_view wanted) {
  const std::string minor_prefix = std::string(wanted) + ".";
  for (const auto& channel : channels) {
    const auto packages = read_channel_packages(channel);
    if (!packages) continue;
    for (const auto& package : *packages) {
      if (package.name == compiler_package && (package.version == wanted || package.version.starts_with(minor_prefix))) {
        return channel;
      }
    }
  }
  return std::nullopt;
}

std::string variant_value(const std::vector<std::string>& variant_arguments, std::string_view key) {
  for (const auto& argument : variant_arguments) {
    if (argument.size() > key.size() && argument.starts_with(key) && argument[key.size()] == '=') {
      return argument.substr(key.size() + 1);
    }
  }
  return {};
}

}  // namespace gpuenv::ci
