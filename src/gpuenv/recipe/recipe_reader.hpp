// Reading a recipe from an already-loaded YAML tree. recipe.hpp is the
// public entry (it loads the file under bounds and returns std::expected);
// this header has no <expected> so the fuzz target (clang 14) can drive the
// reader directly.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "gpuenv/recipe/expression.hpp"
#include "gpuenv/recipe/recipe_error.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::recipe {

// What a recipe is read for: the platforms, the variant (its keys are also
// variables, and compiler()/stdlib() read them), the environment env.get()
// sees, and the bounds.
struct RecipeOptions {
  std::string target_platform = "linux-64";
  std::string build_platform = "linux-64";
  std::string host_platform = "linux-64";
  std::map<std::string, std::string, std::less<>> variant;
  std::map<std::string, std::string, std::less<>> environment;
  ExpressionLimits expression_limits;
  // recipe.yaml files are a few KiB; the largest conda-forge recipes are under 100 KiB.
  std::uintmax_t max_file_bytes = 1u << 20;
  std::size_t max_depth = 64;
};

namespace detail {

// Reads `root` (the recipe file's YAML); `file` and `text` name and quote it
// in errors. Throws RecipeFailure (see recipe_node.hpp); nothing else but
// std::bad_alloc.
Recipe read_recipe_document(const YAML::Node& root, std::string_view file, std::string_view text,
                            const RecipeOptions& options);

}  // namespace detail
}  // namespace gpuenv::recipe
