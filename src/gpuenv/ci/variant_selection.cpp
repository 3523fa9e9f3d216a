#include "gpuenv/ci/variant_selection.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

namespace gpuenv::ci {
namespace {

constexpr std::string_view image_prefix = "gpuenv/ci-";

CiError error(CiError::Kind kind, std::string input, std::string message) {
  return CiError{kind, std::move(input), std::move(message)};
}

bool in_group(const std::vector<std::string>& group, std::string_view key) {
  return std::find(group.begin(), group.end(), key) != group.end();
}

}  // namespace

std::string variant_value_text(const recipe::Value& value) {
  return value.kind() == recipe::Value::Kind::none ? std::string("None") : value.display();
}

std::size_t zip_column(const recipe::VariantConfig& config, const std::vector<std::string>& group,
                       const recipe::Variant& variant) {
  std::size_t columns = 0;
  for (const auto& key : group) {
    if (const auto values = config.values.find(key); values != config.values.end()) {
      columns = std::max(columns, values->second.size());
    }
  }
  for (std::size_t column = 0; column < columns; ++column) {
    const bool matches = std::all_of(group.begin(), group.end(), [&](const std::string& key) {
      const auto used = variant.find(key);
      const auto values = config.values.find(key);
      if (used == variant.end() || values == config.values.end()) return true;
      return column < values->second.size() &&
             variant_value_text(values->second[column]) == variant_value_text(used->second);
    });
    if (matches) return column;
  }
  return 0;
}

std::expected<std::vector<std::string>, CiError> variant_overrides(const recipe::VariantConfig& config,
                                                                   const recipe::Variant& variant,
                                                                   std::string_view recipe_file) {
  std::map<std::string, std::string> chosen;
  for (const auto& [key, value] : variant) {
    // target_platform comes from the command, an exact pin's key from the
    // recipe itself: neither is the variant files' to choose.
    if (!config.values.contains(key)) continue;
    chosen[key] = variant_value_text(value);
  }
  for (const auto& group : config.zip_keys) {
    const bool used = std::any_of(group.begin(), group.end(), [&](const auto& key) { return variant.contains(key); });
    if (!used) continue;
    const auto column = zip_column(config, group, variant);
    for (const auto& key : group) {
      const auto values = config.values.find(key);
      if (values != config.values.end() && column < values->second.size()) {
        chosen[key] = variant_value_text(values->second[column]);
      }
    }
  }
  std::vector<std::string> overrides;
  for (const auto& [key, text] : chosen) {
    // `gpuenv build --variant KEY=VALUE` splits VALUE at commas, and the CI
    // writers put it on a shell line: a value must survive both unchanged.
    if (text.find_first_of(",\n\r'\"\\`$") != std::string::npos) {
      return std::unexpected(error(CiError::Kind::invalid, std::string(recipe_file),
                                   fmt::format("{}: the variant value {}='{}' cannot be passed to `gpuenv build "
                                               "--variant` on a CI shell line (no , ' \" \\ ` $ or line breaks)",
                                               recipe_file, key, text)));
    }
    overrides.push_back(key + "=" + text);
  }
  return overrides;
}

std::expected<const ImageDefinition*, CiError> image_for_variant(const recipe::VariantConfig& config,
                                                                 const recipe::Variant& variant,
                                                                 const std::vector<ImageDefinition>& images,
                                                                 std::string_view recipe_file) {
  const std::string file(recipe_file);
  const auto docker_values = config.values.find("docker_image");
  if (docker_values == config.values.end() || docker_values->second.empty()) {
    return std::unexpected(error(CiError::Kind::inconsistent, file,
                                 fmt::format("{}: the variant files give no docker_image; zip it with "
                                             "cuda_compiler_version (metadata/variants/variants.yaml)",
                                             file)));
  }
  std::size_t column = 0;
  for (const auto& group : config.zip_keys) {
    if (in_group(group, "docker_image")) column = zip_column(config, group, variant);
  }
  if (const auto used = variant.find("docker_image"); used != variant.end()) {
    column = static_cast<std::size_t>(std::find_if(docker_values->second.begin(), docker_values->second.end(),
                                                   [&](const recipe::Value& value) {
                                                     return variant_value_text(value) == variant_value_text(used->second);
                                                   }) -
                                      docker_values->second.begin());
    column = std::min(column, docker_values->second.size() - 1);
  }
  const auto docker_image = variant_value_text(docker_values->second[column]);
  if (!docker_image.starts_with(image_prefix)) {
    return std::unexpected(error(CiError::Kind::inconsistent, file,
                                 fmt::format("{}: docker_image '{}' is not one of this repository's images "
                                             "(gpuenv/ci-<name>, built from ci-images/<name>)",
                                             file, docker_image)));
  }
  const auto name = docker_image.substr(image_prefix.size());
  const auto image = std::find_if(images.begin(), images.end(), [&](const auto& each) { return each.name == name; });
  if (image == images.end()) {
    return std::unexpected(error(CiError::Kind::inconsistent, file,
                                 fmt::format("{}: docker_image '{}' names no image: there is no ci-images/{}/image.yaml",
                                             file, docker_image, name)));
  }
  const auto cuda = variant.find("cuda_compiler_version");
  const std::string wanted = cuda == variant.end() ? std::string() : variant_value_text(cuda->second);
  const bool wants_cuda = !wanted.empty() && wanted != "None";
  if (wants_cuda && (!image->cuda || image->cuda->version != wanted)) {
    return std::unexpected(error(
        CiError::Kind::inconsistent, file,
        fmt::format("{}: the variant with cuda_compiler_version {} would build in {}, whose CUDA toolkit is {}: "
                    "zip docker_image with cuda_compiler_version so that each CUDA version has its own image",
                    file, wanted, docker_image, image->cuda ? image->cuda->version : std::string("absent"))));
  }
  return &*image;
}

}  // namespace gpuenv::ci
