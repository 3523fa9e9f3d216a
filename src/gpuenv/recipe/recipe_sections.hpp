// The sections of a recipe (CEP 14, CEP 41) read from resolved nodes.
// Internal to the recipe module.
#pragma once

#include <vector>

#include "gpuenv/recipe/recipe_node.hpp"

namespace gpuenv::recipe::detail {

std::vector<Source> read_sources(const RecipeNode* node, const ReadState& state);
Script read_script(const RecipeNode* node, std::string_view field, const ReadState& state);
// `staging`: a staging output's build, which may hold only a script.
// `inherited`: the top level's build, which an output's build is merged over.
Build read_build(const RecipeNode* node, bool staging, const ReadState& state, const Build* inherited = nullptr);
// `staging`: no run or run_constraints.
Requirements read_requirements(const RecipeNode* node, bool staging, const ReadState& state);
std::vector<TestElement> read_tests(const RecipeNode* node, const ReadState& state);
About read_about(const RecipeNode* node, const ReadState& state);

}  // namespace gpuenv::recipe::detail
