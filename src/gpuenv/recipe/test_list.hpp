// A package's tests as it carries them: info/tests/tests.yaml, the rendered
// `tests` list of its recipe in the recipe's own syntax (what rattler-build
// writes there too), so `gpuenv test` and `rattler-build test` can read each
// other's packages. Script tests are stored with their lines inline (a
// script file is read in at packaging time); their files live beside it in
// info/tests/<index>/.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/recipe/recipe_error.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::recipe {

// tests.yaml's text for `tests`.
std::string test_list_yaml(const std::vector<TestElement>& tests);

// Reads tests.yaml (`file` names it in errors); bounded like a recipe.
std::expected<std::vector<TestElement>, RecipeError> parse_test_list(std::string_view text, std::string_view file);

}  // namespace gpuenv::recipe
