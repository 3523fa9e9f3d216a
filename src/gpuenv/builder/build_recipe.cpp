#include "gpuenv/builder/build_recipe.hpp"

#include "gpuenv/recipe/recipe_reader.hpp"
#include "gpuenv/repodata/channel_index.hpp"
#include "gpuenv/util/environment.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::build {

RecipeBuildResult build_recipe(const std::filesystem::path& recipe_file, const RecipeBuildRequest& request,
                               BuildObserver& observer) {
  RecipeBuildResult result;
  auto rendered = recipe::render_recipe_file(recipe_file, request.render);
  if (!rendered) {
    const bool override = rendered.error().file == "--variant";
    result.error = BuildError{override ? BuildErrorKind::variant_override : BuildErrorKind::recipe,
                              rendered.error().message};
    return result;
  }
  // render_recipe_file read it within the same bound; a change since is refused.
  auto text = util::read_text_file_at_most(recipe_file, recipe::RecipeOptions{}.max_file_bytes);
  if (!text) {
    result.error = BuildError{BuildErrorKind::recipe, text.error().message};
    return result;
  }
  BuildRequest build;
  build.recipe_file = recipe_file;
  build.recipe_text = std::move(*text);
  build.output_dir = request.output_dir;
  build.settings = request.settings;
  build.pin_run_as_build = rendered->pin_run_as_build;
  build.run_tests = request.run_tests;
  build.build_platform = request.render.build_platform;
  build.timestamp = request.timestamp != 0
                        ? request.timestamp
                        : reproducible_timestamp(util::fixed_environment(request.render.environment), recipe_file);
  build.package_format = request.package_format;
  for (auto& variant : rendered->variants) {
    if (output_build(variant).skip) continue;
    if (!request.source_override.empty()) {
      build.source_override_json = source_override_json(request.source_override, variant.recipe.version);
      apply_source_override(request.source_override, variant);
    }
    auto package = build_variant(variant, build, observer);
    if (!package) {
      result.error = std::move(package.error());
      return result;
    }
    result.built.push_back({variant.output_name, variant.output_version, variant.build_string, std::move(*package)});
    // The output directory is a channel after every package (incremental:
    // only the new archive is read), so it can be installed from at once.
    auto indexed = repodata::index_channel(request.output_dir);
    if (!indexed) {
      result.error = BuildError{BuildErrorKind::packaging, indexed.error().message};
      return result;
    }
    for (const auto& problem : indexed->problems) {
      observer.warning("indexing " + request.output_dir.string() + ": " + problem.message);
    }
  }
  return result;
}

}  // namespace gpuenv::build
