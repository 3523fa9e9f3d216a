// Reading a v1 recipe (recipe.yaml; CEP 13, 14, 41) for one platform and
// variant: the module's entry point. Errors name the file, line and column
// and quote the offending text.
#pragma once

#include <expected>
#include <filesystem>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "gpuenv/recipe/recipe_error.hpp"
#include "gpuenv/recipe/recipe_reader.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::recipe {

// Reads `path` (refused beyond options.max_file_bytes before reading).
std::expected<Recipe, RecipeError> read_recipe(const std::filesystem::path& path, const RecipeOptions& options = {});

// Reads recipe text; `file` names it in errors.
std::expected<Recipe, RecipeError> parse_recipe(std::string_view text, std::string_view file,
                                                const RecipeOptions& options = {});

namespace detail {
// Recipe text as YAML within the options' size and depth bounds, a refusal
// as a RecipeError: what every reading of the recipe starts from.
std::expected<YAML::Node, RecipeError> load_recipe_yaml(std::string_view text, std::string_view file,
                                                        const RecipeOptions& options);
}  // namespace detail

}  // namespace gpuenv::recipe
