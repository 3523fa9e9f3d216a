#include "gpuenv/builder/build_recipe.hpp"

#include "gpuenv/builder/package_output.hpp"
#include "gpuenv/recipe/recipe_reader.hpp"
#include "gpuenv/recipe/render.hpp"
#include "gpuenv/repodata/channel_index.hpp"
#include "gpuenv/util/environment.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::build {

namespace {

// The variant's package in the output channel, in either format.
std::optional<std::filesystem::path> existing_package(const recipe::RenderedVariant& variant,
                                                      const RecipeBuildRequest& request) {
  const auto subdir = request.output_dir / package_subdir(variant, request.render.build_platform);
  for (const auto format : {package::ArchiveFormat::conda, package::ArchiveFormat::tar_bz2}) {
    const auto path = subdir / package_file_name(variant, format);
    std::error_code ignored;
    if (std::filesystem::is_regular_file(path, ignored)) return path;
  }
  return std::nullopt;
}

}  // namespace

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
  // A staging output (CEP 14) builds once what several package outputs
  // install; without it each output's script would run without what the
  // staging script made. Refused until the builder runs them.
  for (const auto& variant : rendered->variants) {
    for (const auto& output : variant.recipe.outputs) {
      if (output.kind != recipe::Output::Kind::staging) continue;
      result.error = BuildError{BuildErrorKind::unsupported,
                                recipe_file.string() + ": the staging output '" + output.name +
                                    "' (line " + std::to_string(output.position.line) +
                                    ") is not built by gpuenv build yet: give each package output its own script "
                                    "(or build the shared part once in the first output's script)"};
      return result;
    }
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
  build.source_archive_dirs = request.source_archive_dirs;
  if (auto config = recipe::render_variant_config(recipe_file, request.render)) {
    const auto cuda = config->values.find("cuda_compiler_version");
    if (cuda != config->values.end() && cuda->second.size() == 1) build.configured_cuda_version = cuda->second.front().display();
  }
  for (auto& variant : rendered->variants) {
    if (output_build(variant).skip) continue;
    if (!request.source_override.empty()) {
      build.source_override_json = source_override_json(request.source_override, variant.recipe.version);
      apply_source_override(request.source_override, variant);
    }
    if (request.skip_existing) {
      if (auto existing = existing_package(variant, request)) {
        observer.step("skipping " + variant.output_name + "-" + variant.output_version + "-" + variant.build_string +
                      ": already in the output channel (" + existing->string() + ")");
        result.skipped.push_back(
            {variant.output_name, variant.output_version, variant.build_string, std::move(*existing)});
        continue;
      }
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
