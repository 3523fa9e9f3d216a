// build_recipe(recipe_file, request, observer): every variant of one recipe
// file into packages -- rendered as `gpuenv render` renders it
// (recipe/render.hpp), each variant not skipped built by build_variant, and
// the output directory indexed after each package
// (repodata/channel_index.hpp), so it is a channel at once. What `gpuenv
// build` calls, and what the CI runner will.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/build_variant.hpp"
#include "gpuenv/builder/source_override.hpp"
#include "gpuenv/recipe/render.hpp"

namespace gpuenv::build {

struct RecipeBuildRequest {
  recipe::RenderRequest render;      // variant files, overrides, platforms, the environment
  std::filesystem::path output_dir;  // absolute
  const environment::Settings* settings = nullptr;
  // reproducible_timestamp(); 0: the recipe file's modification time.
  std::int64_t timestamp = 0;
  std::optional<PackageFormat> package_format;  // absent: .conda
  SourceOverride source_override;               // --source, --source-version
  bool run_tests = true;  // false: `--test skip`
  // rattler-build's --skip-existing=local: a variant whose package (same
  // name, version and build string, .conda or .tar.bz2) is already in the
  // output channel is not built again.
  bool skip_existing = false;
  std::vector<std::filesystem::path> source_archive_dirs;  // --source-archives (sources.hpp)
  // --source-for RECIPE=PATH: one recipe's source override in a repository
  // build, by recipe file (build_repository applies it as source_override).
  std::map<std::filesystem::path, SourceOverride> recipe_source_overrides;
};

struct BuiltVariant {
  std::string name;
  std::string version;
  std::string build_string;
  BuiltPackage package;
};

// A variant not built because its package is in the output channel.
struct SkippedVariant {
  std::string name;
  std::string version;
  std::string build_string;
  std::filesystem::path package;
};

struct RecipeBuildResult {
  std::vector<BuiltVariant> built;  // in order; also those built before a failure
  std::vector<SkippedVariant> skipped;
  std::optional<BuildError> error;  // the first failure, which stopped the build
};

RecipeBuildResult build_recipe(const std::filesystem::path& recipe_file, const RecipeBuildRequest& request,
                               BuildObserver& observer);

}  // namespace gpuenv::build
