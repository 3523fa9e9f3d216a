#include "gpuenv/recipe/recipe_outline.hpp"

#include <utility>

#include "gpuenv/recipe/expression_syntax.hpp"
#include "gpuenv/recipe/recipe.hpp"
#include "gpuenv/recipe/recipe_node.hpp"

namespace gpuenv::recipe {
namespace {

using detail::RecipeNode;

std::optional<WrittenChecksum> written_checksum(const RecipeNode& source, std::string_view key) {
  const RecipeNode* node = source.find(key);
  if (node == nullptr || node->kind != RecipeNode::Kind::scalar) return std::nullopt;
  return WrittenChecksum{node->text, node->position};
}

}  // namespace

std::expected<RecipeOutline, RecipeError> RecipeOutline::read(std::string_view text, std::string_view file,
                                                              const RecipeOptions& options) {
  auto root = detail::load_recipe_yaml(text, file, options);
  if (!root) return std::unexpected(std::move(root.error()));
  RecipeOutline outline;
  outline.file_ = std::string(file);
  outline.text_ = std::string(text);
  outline.limits_ = options.expression_limits;
  try {
    const detail::ReadState state = detail::read_state(outline.file_, outline.text_, options);
    outline.document_ = std::make_shared<const RecipeNode>(detail::copy_yaml(*root, state));
  } catch (detail::RecipeFailure& failure) {
    return std::unexpected(std::move(failure.error));
  }
  if (root->IsMap()) {
    for (const auto& entry : *root) {
      const YAML::Mark mark = entry.first.Mark();
      if (!entry.first.IsScalar() || mark.line < 0 || mark.column < 0) continue;
      outline.sections_.emplace(entry.first.Scalar(), SourcePosition{static_cast<std::size_t>(mark.line) + 1,
                                                                     static_cast<std::size_t>(mark.column) + 1});
    }
  }
  outline.walk(*outline.document_, {}, std::nullopt, true);
  return outline;
}

// `key` is the nearest mapping key above `node`, lists and selector branches
// looked through: "source" for every source, at the top or in an output.
void RecipeOutline::walk(const RecipeNode& node, std::string_view key, std::optional<std::size_t> enclosing,
                         bool in_then) {
  switch (node.kind) {
    case RecipeNode::Kind::null: return;
    case RecipeNode::Kind::scalar:
      for (const auto expression : detail::template_expressions(node.text)) {
        try {
          for (auto& call : detail::toolchain_calls(*detail::parse_expression(expression, limits_))) {
            toolchain_calls_.push_back({std::move(call.function), std::move(call.language), node.position});
          }
        } catch (const ExpressionError&) {
          // Reading the recipe reports it, with its position.
        }
      }
      return;
    case RecipeNode::Kind::sequence:
      for (const auto& item : node.items) walk(item, key, enclosing, in_then);
      return;
    case RecipeNode::Kind::map: break;
  }
  if (const RecipeNode* condition = node.find("if")) {
    const std::size_t index = conditions_.size();
    conditions_.push_back({condition->kind == RecipeNode::Kind::scalar ? condition->text : std::string(),
                           condition->position, enclosing, in_then});
    condition_nodes_.push_back(condition);
    walk(*condition, "if", enclosing, in_then);
    if (const RecipeNode* then_branch = node.find("then")) walk(*then_branch, key, index, true);
    if (const RecipeNode* else_branch = node.find("else")) walk(*else_branch, key, index, false);
    return;
  }
  if (key == "source" && node.find("url") != nullptr) {
    url_sources_.push_back({node.position, written_checksum(node, "sha256"), written_checksum(node, "md5")});
  }
  for (const auto& [entry, value] : node.entries) walk(value, entry, enclosing, in_then);
}

std::optional<SourcePosition> RecipeOutline::section_position(std::string_view key) const {
  const auto found = sections_.find(key);
  if (found == sections_.end()) return std::nullopt;
  return found->second;
}

std::expected<std::vector<ConditionValue>, RecipeError> RecipeOutline::evaluate_conditions(
    const RecipeOptions& options) const {
  detail::ReadState state = detail::read_state(file_, text_, options);
  try {
    Recipe context_only;
    detail::read_context(document_->find("context"), context_only, state);
  } catch (detail::RecipeFailure& failure) {
    return std::unexpected(std::move(failure.error));
  }
  std::vector<ConditionValue> values(conditions_.size());
  for (std::size_t index = 0; index < conditions_.size(); ++index) {
    // An enclosing selector comes first in written order, so its value is known.
    if (const auto outer = conditions_[index].enclosing) {
      const auto taken = conditions_[index].in_then ? ConditionValue::Kind::holds : ConditionValue::Kind::fails;
      if (values[*outer].kind != taken) continue;
    }
    try {
      values[index].kind =
          detail::condition_holds(*condition_nodes_[index], state) ? ConditionValue::Kind::holds : ConditionValue::Kind::fails;
    } catch (detail::RecipeFailure& failure) {
      values[index].kind = ConditionValue::Kind::error;
      values[index].error = std::move(failure.error);
    }
  }
  return values;
}

}  // namespace gpuenv::recipe
