#include "gpuenv/recipe/recipe.hpp"

#include "gpuenv/recipe/recipe_node.hpp"
#include "gpuenv/util/yaml_document.hpp"

namespace gpuenv::recipe {

RecipeError from_yaml_error(const util::YamlError& yaml_error, std::string_view file) {
  RecipeError error;
  error.file = std::string(file);
  error.message = yaml_error.message;
  error.line = yaml_error.line;
  error.column = yaml_error.column;
  switch (yaml_error.kind) {
    case util::YamlError::Kind::unreadable: error.kind = RecipeError::Kind::unreadable; break;
    case util::YamlError::Kind::not_yaml: error.kind = RecipeError::Kind::not_yaml; break;
    default: error.kind = RecipeError::Kind::too_large; break;
  }
  return error;
}

namespace {

util::YamlLimits yaml_limits(const RecipeOptions& options) {
  util::YamlLimits limits;
  limits.max_file_bytes = options.max_file_bytes;
  limits.max_depth = options.max_depth;
  return limits;
}

}  // namespace

std::expected<Recipe, RecipeError> parse_recipe(std::string_view text, std::string_view file,
                                                const RecipeOptions& options) {
  if (text.size() > options.max_file_bytes) {
    RecipeError error;
    error.kind = RecipeError::Kind::too_large;
    error.file = std::string(file);
    error.message = std::string(file) + ": recipe larger than " + std::to_string(options.max_file_bytes) +
                    " bytes; a recipe.yaml is a few KiB (is this the right file?)";
    return std::unexpected(std::move(error));
  }
  auto root = detail::load_recipe_yaml(text, file, options);
  if (!root) return std::unexpected(std::move(root.error()));
  try {
    return detail::read_recipe_document(*root, file, text, options);
  } catch (detail::RecipeFailure& failure) {
    return std::unexpected(std::move(failure.error));
  }
}

std::expected<YAML::Node, RecipeError> detail::load_recipe_yaml(std::string_view text, std::string_view file,
                                                                const RecipeOptions& options) {
  auto root = util::load_yaml(text, file, yaml_limits(options));
  if (!root) return std::unexpected(from_yaml_error(root.error(), file));
  return std::move(*root);
}

std::expected<Recipe, RecipeError> read_recipe(const std::filesystem::path& path, const RecipeOptions& options) {
  std::string text;
  auto root = util::read_yaml_file(path, &text, yaml_limits(options));
  if (!root) return std::unexpected(from_yaml_error(root.error(), path.string()));
  try {
    return detail::read_recipe_document(*root, path.string(), text, options);
  } catch (detail::RecipeFailure& failure) {
    return std::unexpected(std::move(failure.error));
  }
}

}  // namespace gpuenv::recipe
