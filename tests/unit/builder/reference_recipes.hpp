// The reference recipes (recipes/ of this repository, recipes/examples
// included) rendered with gpuenv's own pinning (metadata/variants/
// variants.yaml) for the platforms the CI images serve: what the reference
// recipe tests iterate over. A recipe added under recipes/ is picked up
// without a change here.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/recipe/render.hpp"

namespace gpuenv::testing {

inline std::filesystem::path reference_recipes_dir() { return std::filesystem::path(GPUENV_SOURCE_DIR) / "recipes"; }

inline std::filesystem::path reference_variants_file() {
  return std::filesystem::path(GPUENV_SOURCE_DIR) / "metadata/variants/variants.yaml";
}

// Every recipe.yaml under recipes/, sorted.
inline std::vector<std::filesystem::path> reference_recipe_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(reference_recipes_dir())) {
    if (entry.is_regular_file() && entry.path().filename() == "recipe.yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline const std::vector<std::string>& reference_platforms() {
  static const std::vector<std::string> platforms{"linux-64", "linux-aarch64"};
  return platforms;
}

// How the reference recipes are rendered for `target_platform`, built on linux-64.
inline recipe::RenderRequest reference_render_request(const std::string& target_platform) {
  recipe::RenderRequest request;
  request.variant_files = {reference_variants_file()};
  request.target_platform = target_platform;
  request.build_platform = "linux-64";
  return request;
}

// The recipe file's path relative to recipes/, for messages.
inline std::string reference_recipe_name(const std::filesystem::path& file) {
  return file.parent_path().lexically_relative(reference_recipes_dir()).string();
}

}  // namespace gpuenv::testing
