// A recipe as written, every branch of every selector included: what lint
// (lint.hpp) checks without choosing one platform and variant. Its `if:`
// conditions, each of which can be evaluated for any platform and variant
// without reading the rest of the recipe; its url sources' checksums as
// written; where compiler()/stdlib() are called; where the top-level
// sections stand. Loaded under the reader's bounds (the same YAML copy).
#pragma once

#include <cstddef>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/recipe/recipe_error.hpp"
#include "gpuenv/recipe/recipe_reader.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::recipe {
namespace detail {
struct RecipeNode;
}

struct SelectorCondition {
  std::string expression;  // the `if:` text as written
  SourcePosition position;
  // The selector in one of whose branches this one is written (an index
  // into conditions()) and which branch; none for an outermost selector.
  std::optional<std::size_t> enclosing;
  bool in_then = true;
};

// A condition's value for one platform and variant.
struct ConditionValue {
  // not_reached: an enclosing selector took the other branch, or failed.
  enum class Kind { holds, fails, error, not_reached };
  Kind kind = Kind::not_reached;
  RecipeError error;  // kind error: the reader's error (file, position, message)
};

struct WrittenChecksum {
  std::string text;  // as written (may hold `${{ }}`)
  SourcePosition position;
};

struct UrlSource {
  SourcePosition position;
  std::optional<WrittenChecksum> sha256, md5;
};

struct ToolchainCall {
  std::string function;  // compiler | stdlib
  std::string language;  // c, cxx, cuda, ...
  SourcePosition position;  // of the YAML scalar calling it: a rendered Dependency's position
};

class RecipeOutline {
 public:
  // Errors: the reader's for YAML syntax, bounds and duplicate keys.
  static std::expected<RecipeOutline, RecipeError> read(std::string_view text, std::string_view file,
                                                        const RecipeOptions& options = {});

  const std::vector<SelectorCondition>& conditions() const { return conditions_; }
  const std::vector<UrlSource>& url_sources() const { return url_sources_; }
  const std::vector<ToolchainCall>& toolchain_calls() const { return toolchain_calls_; }
  // Where a top-level key (`about`, `package`, `requirements`, ...) is written.
  std::optional<SourcePosition> section_position(std::string_view key) const;

  // Each condition's value (conditions() order) for `options`' platforms and
  // variant, the context evaluated first as the reader evaluates it. Fails
  // when the context cannot be evaluated.
  std::expected<std::vector<ConditionValue>, RecipeError> evaluate_conditions(const RecipeOptions& options) const;

 private:
  void walk(const detail::RecipeNode& node, std::string_view key, std::optional<std::size_t> enclosing, bool in_then);

  std::string file_;
  std::string text_;
  std::shared_ptr<const detail::RecipeNode> document_;
  std::vector<SelectorCondition> conditions_;
  std::vector<const detail::RecipeNode*> condition_nodes_;  // the `if:` nodes, inside document_
  std::vector<UrlSource> url_sources_;
  std::vector<ToolchainCall> toolchain_calls_;
  std::map<std::string, SourcePosition, std::less<>> sections_;
  ExpressionLimits limits_;
};

}  // namespace gpuenv::recipe
