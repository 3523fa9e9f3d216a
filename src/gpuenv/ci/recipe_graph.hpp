// The order recipes build in: a recipe needs another when a package the
// other builds is named in its build or host requirements (its run
// requirements are met at install time, from any channel). Recipes that
// need each other cannot be built at all, so a cycle is an error naming them.
#pragma once

#include <cstddef>
#include <expected>
#include <set>
#include <string>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::ci {

struct RecipeNode {
  std::string file;
  std::set<std::string> outputs;         // the package names it builds
  std::set<std::string> requires_names;  // package names in its build and host requirements
};

struct RecipeOrder {
  std::vector<std::size_t> order;               // indexes into the nodes, dependencies first
  std::vector<std::vector<std::size_t>> needs;  // per node: the nodes it needs, ascending
};

// The package name a requirement names: a pin's, or the match spec's first word.
std::string dependency_name(const recipe::Dependency& dependency);

// Dependencies first; among recipes free to go, the one found first (the
// order of build::recipe_build_order). Error: a cycle, naming its recipe
// files and what each needs of the next.
std::expected<RecipeOrder, CiError> order_recipes(const std::vector<RecipeNode>& nodes);

}  // namespace gpuenv::ci
