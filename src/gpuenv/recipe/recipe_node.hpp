// The YAML of a recipe as the reader walks it: first copied out of yaml-cpp
// with positions (duplicate keys refused, depth bounded), then resolved for
// one platform and variant: `if/then/else` selectors chosen (in lists, at any depth) and
// `${{ }}` templates rendered. Internal to the recipe module.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuenv/recipe/expression.hpp"
#include "gpuenv/recipe/recipe_error.hpp"
#include "gpuenv/recipe/recipe_reader.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::recipe::detail {

// Thrown inside the reader; read_recipe() returns the error it carries.
struct RecipeFailure {
  RecipeError error;
};

struct RecipeEntry;

struct RecipeNode {
  enum class Kind { null, scalar, sequence, map };
  Kind kind = Kind::null;
  SourcePosition position;
  std::string text;     // a scalar as written (kept as the value where templates wait for build time)
  bool plain = false;   // an unquoted scalar (its text may be an integer or boolean)
  bool quoted = false;  // single- or double-quoted on its line
  Value value;          // a resolved scalar's value
  std::vector<RecipeNode> items;
  // In written order; the key's position is the value's line. (A struct,
  // not std::pair: clang 14, which builds the fuzz targets, refuses a pair
  // of this still incomplete type.)
  std::vector<RecipeEntry> entries;

  const RecipeNode* find(std::string_view key) const;
};

struct RecipeEntry {
  std::string key;
  RecipeNode value;
};

inline const RecipeNode* RecipeNode::find(std::string_view key) const {
  for (const auto& entry : entries) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

// Where the reader is: the file's name and text (for messages), the
// expression context and bounds.
struct ReadState {
  std::string file;
  std::string_view text;
  EvaluationContext context;
  std::size_t max_depth = 64;

  [[noreturn]] void fail(RecipeError::Kind kind, SourcePosition position, std::string_view offending,
                         std::string_view reason) const;
  [[noreturn]] void fail_expression(const RecipeNode& node, const ExpressionError& error) const;
};

// The reader's state for `options` (no used_names recorded).
ReadState read_state(std::string_view file, std::string_view text, const RecipeOptions& options);

// Evaluates the `context:` section in order into recipe.context and
// state.context.variables (recipe_reader.cpp).
void read_context(const RecipeNode* node, Recipe& recipe, ReadState& state);

// Copies a yaml-cpp tree (throws RecipeFailure on duplicate keys, depth).
RecipeNode copy_yaml(const YAML::Node& node, const ReadState& state);

// Whether a selector's `if:` node holds with state.context (throws
// RecipeFailure when it is no expression or cannot be evaluated).
bool condition_holds(const RecipeNode& condition, const ReadState& state);

// Chooses selectors and renders templates beneath `node` (the value of
// `key`) with state.context. Scripts and build.string keep their templates.
RecipeNode resolve(const RecipeNode& node, const ReadState& state, std::string_view key = {});

// The value a plain scalar stands for without templates, as rattler-build's
// context reads it: decimal integers and true/false typed, the rest text.
Value plain_scalar_value(const RecipeNode& node);

}  // namespace gpuenv::recipe::detail
