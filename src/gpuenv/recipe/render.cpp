#include "gpuenv/recipe/render.hpp"

#include <system_error>
#include <utility>

#include "gpuenv/util/file_io.hpp"

namespace gpuenv::recipe {

std::filesystem::path recipe_file_path(const std::filesystem::path& argument) {
  std::error_code ignored;
  return std::filesystem::is_directory(argument, ignored) ? argument / "recipe.yaml" : argument;
}

std::optional<std::filesystem::path> recipe_variant_file(const std::filesystem::path& recipe) {
  // rattler-build looks for these two names, in this order, and takes the first.
  for (const char* name : {"variants.yaml", "conda_build_config.yaml"}) {
    const auto candidate = recipe.parent_path() / name;
    std::error_code ignored;
    if (std::filesystem::is_regular_file(candidate, ignored)) return candidate;
  }
  return std::nullopt;
}

std::expected<VariantConfig, RecipeError> render_variant_config(const std::filesystem::path& recipe,
                                                                const RenderRequest& request,
                                                                std::vector<std::filesystem::path>* files_read) {
  std::vector<std::filesystem::path> files;
  // The recipe's own file first so that files given on the command line win,
  // as in rattler-build.
  if (request.use_recipe_variant_file) {
    if (auto local = recipe_variant_file(recipe)) files.push_back(*local);
  }
  files.insert(files.end(), request.variant_files.begin(), request.variant_files.end());
  if (files_read != nullptr) *files_read = files;

  VariantReadOptions variant_options;
  variant_options.target_platform = request.target_platform;
  variant_options.build_platform = request.build_platform;
  variant_options.environment = request.environment;
  VariantConfig config;
  for (const auto& file : files) {
    auto read = read_variant_config(file, variant_options);
    if (!read) return std::unexpected(std::move(read.error()));
    merge_variant_config(config, *read);
  }
  if (auto applied = apply_variant_overrides(config, request.overrides); !applied) {
    return std::unexpected(std::move(applied.error()));
  }
  return config;
}

std::expected<RenderedRecipe, RecipeError> render_recipe_file(const std::filesystem::path& recipe,
                                                              const RenderRequest& request) {
  RecipeOptions recipe_options;
  recipe_options.target_platform = request.target_platform;
  recipe_options.host_platform = request.target_platform;
  recipe_options.build_platform = request.build_platform;
  recipe_options.environment = request.environment;

  auto text = util::read_text_file_at_most(recipe, recipe_options.max_file_bytes);
  if (!text) {
    RecipeError error;
    error.kind = text.error().kind == util::FileReadError::Kind::too_large ? RecipeError::Kind::too_large
                                                                           : RecipeError::Kind::unreadable;
    error.file = recipe.string();
    error.message = text.error().message;
    return std::unexpected(std::move(error));
  }

  RenderedRecipe rendered;
  auto config = render_variant_config(recipe, request, &rendered.variant_files);
  if (!config) return std::unexpected(std::move(config.error()));
  auto variants = render_variants(*text, recipe.string(), *config, recipe_options);
  if (!variants) return std::unexpected(std::move(variants.error()));
  rendered.variants = std::move(*variants);
  rendered.pin_run_as_build = config->pin_run_as_build;
  return rendered;
}

}  // namespace gpuenv::recipe
