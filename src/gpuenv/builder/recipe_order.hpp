// Whole-repository builds (`gpuenv build recipes/`, `gpuenv ci run DIR`):
// which recipe files the command line names, and the order they build in so
// that every recipe's build, host and run requirements that another recipe
// makes are built first and land in the one output channel the later builds
// solve from. Run requirements count too: a host package's run dependencies
// must be in that channel when the host environment is solved. (The CI
// configuration's job graph, ci/recipe_graph.hpp, needs build and host
// only: its jobs install from every channel.)
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/recipe/render.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

// The recipe files `argument` names: a recipe.yaml file; a directory holding
// one (that recipe only); or a directory of recipes, searched for
// recipe.yaml files below it (a directory that holds one is a recipe and is
// not searched further; hidden directories are left out), sorted by path.
// Errors (kind `option`): nothing there, or a directory without any recipe.
std::expected<std::vector<std::filesystem::path>, BuildError> find_recipe_files(const std::filesystem::path& argument);

// What one recipe makes and needs, over all its rendered variants.
// What one command-line argument names for a per-recipe report (`gpuenv
// lint`): a recipe.yaml, or a directory holding one, is itself, named as
// given; a directory of recipes is every recipe under it (find_recipe_files),
// each named by its directory. An argument naming nothing comes back as
// given, so reading it reports what is missing.
struct NamedRecipe {
  std::string name;
  std::filesystem::path file;
};
std::vector<NamedRecipe> recipes_named_by(const std::string& argument);

struct RecipeNeeds {
  std::filesystem::path file;
  std::set<std::string> outputs;  // package names of its outputs
  std::set<std::string> needs;    // names in build, host and run requirements (pins by their name)
};

RecipeNeeds recipe_needs(const std::filesystem::path& file, const std::vector<recipe::RenderedVariant>& variants);

// The package name a requirement names: a pin's name, or the match spec's
// first word ("python 3.13.* *_cp313" -> "python", "conda-forge::zlib" -> "zlib").
std::string requirement_name(const recipe::Dependency& dependency);

// For each recipe, the other recipes whose outputs it needs, each with the
// first name it needs of it. A recipe's own outputs add nothing (they build
// in the same run of it); a name several recipes make is the first one's.
std::vector<std::map<std::size_t, std::string>> recipe_dependencies(const std::vector<RecipeNeeds>& recipes);

// Indexes into `recipes` in build order: a recipe comes after every other
// recipe whose outputs it needs; otherwise the given order is kept. Needs
// that no recipe here makes (the channels' packages) add no order. A cycle
// is an error (kind `recipe`) naming the recipes in it and what each needs
// of the next.
std::expected<std::vector<std::size_t>, BuildError> recipe_build_order(const std::vector<RecipeNeeds>& recipes);

// `files` rendered with `render` and put in build order (recipe_build_order).
// Errors: a recipe that does not render (kind `recipe`, or `variant_override`
// for a malformed --variant), a cycle. One file is returned as it is.
std::expected<std::vector<std::filesystem::path>, BuildError> ordered_recipe_files(
    const std::vector<std::filesystem::path>& files, const recipe::RenderRequest& render);

}  // namespace gpuenv::build
