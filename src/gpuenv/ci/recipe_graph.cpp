#include "gpuenv/ci/recipe_graph.hpp"

#include "gpuenv/builder/recipe_order.hpp"

namespace gpuenv::ci {

std::string dependency_name(const recipe::Dependency& dependency) { return build::requirement_name(dependency); }

std::expected<RecipeOrder, CiError> order_recipes(const std::vector<RecipeNode>& nodes) {
  // The same order as a whole-repository `gpuenv build` over these needs
  // (build/recipe_order.hpp): one ordering for both, only the needs differ.
  std::vector<build::RecipeNeeds> recipes;
  for (const auto& node : nodes) recipes.push_back({node.file, node.outputs, node.requires_names});
  auto order = build::recipe_build_order(recipes);
  if (!order) {
    // No one input: the message names every recipe of the cycle.
    return std::unexpected(CiError{CiError::Kind::cycle, {}, order.error().message});
  }
  RecipeOrder result;
  result.order = std::move(*order);
  for (const auto& dependencies : build::recipe_dependencies(recipes)) {
    auto& needs = result.needs.emplace_back();
    for (const auto& [index, name] : dependencies) needs.push_back(index);  // a map: ascending
  }
  return result;
}

}  // namespace gpuenv::ci
