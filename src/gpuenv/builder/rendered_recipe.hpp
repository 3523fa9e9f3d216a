// info/recipe/rendered_recipe.yaml: the recipe as this build resolved it --
// name, version, build string and number, the requirements with pins and
// run_exports resolved, the variant and its hash, and the packages the build
// and host environments held -- so a package says how it was made without
// rerunning the renderer. The layout follows rattler-build's file where the
// two overlap (recipe:, build_configuration:); it is for people and tools to
// read, not read back by gpuenv.
#pragma once

#include <string>
#include <vector>

#include "gpuenv/builder/resolved_requirements.hpp"
#include "gpuenv/recipe/variants.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::build {

struct RenderedRecipeInput {
  const recipe::RenderedVariant* variant = nullptr;
  std::vector<std::string> build_specs, host_specs;  // as solved
  const ResolvedRequirements* requirements = nullptr;
  std::string subdir;  // noarch or the target platform
  std::string build_platform;
  std::vector<specs::PackageRecord> build_environment, host_environment;
};

std::string rendered_recipe_yaml(const RenderedRecipeInput& input);

}  // namespace gpuenv::build
