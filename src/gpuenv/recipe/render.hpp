// Rendering a recipe file as `rattler-build render` does: the variant files
// are read and merged (a `variants.yaml`, else a `conda_build_config.yaml`,
// next to the recipe first, then the files given, later ones winning), the
// `--variant KEY=VALUE` overrides applied, and every variant rendered
// (variants.hpp). What `gpuenv render` and the builder start from.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/recipe/recipe_error.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::recipe {

struct RenderRequest {
  std::vector<std::filesystem::path> variant_files;  // in order; later files win
  std::vector<std::string> overrides;                 // KEY=VALUE[,VALUE...] (apply_variant_overrides)
  std::string target_platform = "linux-64";
  std::string build_platform = "linux-64";
  bool use_recipe_variant_file = true;  // rattler-build's --ignore-recipe-variants turns it off
  // What env.get() in the recipe and os.environ.get() in variant files see:
  // the process environment for the commands, as in rattler-build.
  std::map<std::string, std::string, std::less<>> environment;
};

struct RenderedRecipe {
  std::vector<std::filesystem::path> variant_files;  // the files read, in the order merged
  std::vector<RenderedVariant> variants;
  // The merged configuration's pin_run_as_build, which the builder applies.
  std::map<std::string, RunAsBuildPin, std::less<>> pin_run_as_build;
};

// The recipe file a command-line argument names: a directory means its
// recipe.yaml, as in rattler-build; anything else is taken as written.
std::filesystem::path recipe_file_path(const std::filesystem::path& argument);

// The variant file rattler-build picks up next to `recipe`: variants.yaml,
// else conda_build_config.yaml; none when neither is a regular file.
std::optional<std::filesystem::path> recipe_variant_file(const std::filesystem::path& recipe);

// The variant configuration render_recipe_file expands `recipe` over: the
// files merged (their names, in order, in `files_read` when given), the
// overrides applied. Errors as render_recipe_file's.
std::expected<VariantConfig, RecipeError> render_variant_config(const std::filesystem::path& recipe,
                                                                const RenderRequest& request,
                                                                std::vector<std::filesystem::path>* files_read = nullptr);

// Errors name the file (recipe or variant file, line and column) or, for a
// malformed override, have file "--variant" (a usage mistake).
std::expected<RenderedRecipe, RecipeError> render_recipe_file(const std::filesystem::path& recipe,
                                                              const RenderRequest& request);

// The request `gpuenv render`, `lint` and `build` render with: this
// machine's platform as the build platform, `target_platform` or else this
// one, `overrides` (--variant) and `variant_files` (-m) in order, and the
// process environment for env.get().
RenderRequest render_request_on_this_machine(std::vector<std::string> overrides,
                                             const std::vector<std::string>& variant_files,
                                             const std::string& target_platform);

// A variant's requirements by section, in the order recipes write them:
// build, host, run, run_constraints.
struct RequirementSection {
  const char* name;
  const std::vector<Dependency>* dependencies;
};
std::vector<RequirementSection> requirement_sections(const Requirements& requirements);

// `gpuenv render --json` (docs/json-output.md): the variant files read and,
// per variant, its output name, version, build string, hash, variant values
// (typed: null, booleans and integers as themselves) and requirements.
std::string rendered_recipe_json(const std::string& recipe, const std::string& target_platform,
                                 const RenderedRecipe& rendered);

}  // namespace gpuenv::recipe
