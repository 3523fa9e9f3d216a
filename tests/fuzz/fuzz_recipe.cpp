// libFuzzer target for the recipe reader: any text that yaml-cpp parses is
// read as a recipe.yaml; the reader either returns a Recipe or throws its
// RecipeFailure. It drives detail::read_recipe_document, the reader behind
// recipe::parse_recipe: clang 14 cannot compile libstdc++ 12's
// std::expected, which parse_recipe and util::load_yaml return. load_yaml's
// alias bound is stood in for by a small walk budget here.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuenv/recipe/recipe_node.hpp"
#include "gpuenv/recipe/recipe_reader.hpp"

namespace {

// Walks the tree as the reader will (aliases expanded); false when it is
// larger than `budget` values or deeper than 64.
bool within_budget(const YAML::Node& node, std::size_t& budget, std::size_t depth) {
  if (budget == 0 || depth > 64) return false;
  --budget;
  if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!within_budget(item, budget, depth + 1)) return false;
    }
  } else if (node.IsMap()) {
    for (const auto& entry : node) {
      if (!within_budget(entry.first, budget, depth + 1) || !within_budget(entry.second, budget, depth + 1)) return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return 0;
  }
  std::size_t budget = 20'000;
  if (!within_budget(root, budget, 0)) return 0;
  gpuenv::recipe::RecipeOptions options;
  options.variant = {{"cuda_compiler_version", "12.9"}, {"c_stdlib", "sysroot"}, {"c_stdlib_version", "2.17"}};
  options.expression_limits.max_output_bytes = 1 << 16;
  options.expression_limits.max_output_items = 1 << 12;
  try {
    (void)gpuenv::recipe::detail::read_recipe_document(root, "fuzz.yaml", text, options);
  } catch (const gpuenv::recipe::detail::RecipeFailure&) {
  }
  return 0;
}
