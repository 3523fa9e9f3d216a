#include "gpuenv/recipe/recipe_node.hpp"

#include <algorithm>
#include <charconv>

namespace gpuenv::recipe {

std::string format_recipe_message(std::string_view file, std::string_view text, std::size_t line, std::size_t column,
                                  std::string_view offending, std::string_view reason) {
  std::string message(file);
  if (line > 0) {
    message.append(":").append(std::to_string(line));
    if (column > 0) message.append(":").append(std::to_string(column));
  }
  message.append(": ").append(reason);
  if (!offending.empty()) message.append(" '").append(offending.substr(0, 200)).append("'");
  if (line == 0) return message;
  // The line itself, with a caret under the column.
  std::size_t start = 0;
  for (std::size_t current = 1; current < line && start != std::string_view::npos; ++current) {
    start = text.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos || start >= text.size()) return message;
  std::string_view source_line = text.substr(start, text.find('\n', start) - start);
  if (!source_line.empty() && source_line.back() == '\r') source_line.remove_suffix(1);
  if (source_line.size() > 200) return message;
  const std::string number = std::to_string(line);
  message.append("\n ").append(number).append(" | ").append(source_line);
  if (column > 0 && column <= source_line.size() + 1) {
    message.append("\n ").append(number.size(), ' ').append(" | ").append(column - 1, ' ').append("^");
  }
  return message;
}

namespace detail {

void ReadState::fail(RecipeError::Kind kind, SourcePosition position, std::string_view offending,
                     std::string_view reason) const {
  RecipeError error;
  error.kind = kind;
  error.file = file;
  error.line = position.line;
  error.column = position.column;
  error.offending = std::string(offending.substr(0, 200));
  error.message = format_recipe_message(file, text, position.line, position.column, offending, reason);
  throw RecipeFailure{std::move(error)};
}

void ReadState::fail_expression(const RecipeNode& node, const ExpressionError& error) const {
  SourcePosition position = node.position;
  // On a one-line scalar the column of the expression's problem is exact.
  if (node.kind == RecipeNode::Kind::scalar && node.text.find('\n') == std::string::npos && position.line > 0) {
    position.column += (node.quoted ? 1 : 0) + error.template_offset() + (error.column() > 0 ? error.column() - 1 : 0);
  }
  std::string reason = error.reason();
  if (error.kind() == ExpressionError::Kind::undefined) reason = "undefined value";
  // Reasons are worded to go before the offending text ("division by zero
  // in"); here " in '<expression>'" follows, so the word is not repeated.
  for (const std::string_view tail : {" in", ":"}) {
    if (reason.ends_with(tail)) reason.resize(reason.size() - tail.size());
  }
  std::string offending = error.offending().empty() ? error.expression() : error.offending();
  fail(RecipeError::Kind::expression, position, offending,
       reason + " in '" + (error.template_offset() > 0 || has_expression(node.text) ? "${{ " + error.expression() + " }}"
                                                                                    : error.expression()) +
           "':");
}

namespace {

SourcePosition position_of(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0 || mark.column < 0) return {};
  return {static_cast<std::size_t>(mark.line) + 1, static_cast<std::size_t>(mark.column) + 1};
}

class YamlCopier {
 public:
  explicit YamlCopier(const ReadState& state) : state_(state) {}

  RecipeNode copy(const YAML::Node& node, std::size_t depth) {
    RecipeNode result;
    result.position = position_of(node);
    // yaml-cpp shares aliased nodes; copying expands them, so count what is copied.
    if (++copied_ > max_nodes) state_.fail(RecipeError::Kind::too_large, result.position, "", "recipe has too many values");
    if (depth > state_.max_depth) state_.fail(RecipeError::Kind::too_large, result.position, "", "recipe nested too deeply");
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: result.kind = RecipeNode::Kind::null; break;
      case YAML::NodeType::Scalar:
        result.kind = RecipeNode::Kind::scalar;
        result.text = node.Scalar();
        copied_bytes_ += result.text.size();
        if (copied_bytes_ > max_bytes) state_.fail(RecipeError::Kind::too_large, result.position, "", "recipe text too large");
        result.plain = node.Tag() == "?";
        result.quoted = !result.plain && result.position.line > 0 && quoted_at(result.position);
        break;
      case YAML::NodeType::Sequence:
        result.kind = RecipeNode::Kind::sequence;
        for (const auto& item : node) result.items.push_back(copy(item, depth + 1));
        break;
      case YAML::NodeType::Map:
        result.kind = RecipeNode::Kind::map;
        for (const auto& entry : node) {
          if (!entry.first.IsScalar()) {
            state_.fail(RecipeError::Kind::invalid_value, position_of(entry.first), "", "a key must be text");
          }
          const std::string key = entry.first.Scalar();
          if (result.find(key) != nullptr) {
            state_.fail(RecipeError::Kind::invalid_value, position_of(entry.first), key, "duplicate key");
          }
          RecipeNode value = copy(entry.second, depth + 1);
          if (value.position.line == 0) value.position = position_of(entry.first);
          result.entries.push_back(RecipeEntry{key, std::move(value)});
        }
        break;
    }
    return result;
  }

 private:
  bool quoted_at(SourcePosition position) const {
    std::size_t start = 0;
    for (std::size_t line = 1; line < position.line; ++line) {
      start = state_.text.find('\n', start);
      if (start == std::string_view::npos) return false;
      ++start;
    }
    const std::size_t at = start + position.column - 1;
    return at < state_.text.size() && (state_.text[at] == '\'' || state_.text[at] == '"');
  }

  static constexpr std::size_t max_nodes = 1'000'000;
  static constexpr std::size_t max_bytes = 16u << 20;
  const ReadState& state_;
  std::size_t copied_ = 0;
  std::size_t copied_bytes_ = 0;
};

bool is_selector(const RecipeNode& node) { return node.kind == RecipeNode::Kind::map && node.find("if") != nullptr; }

// What rattler-build leaves unrendered until build time: a script's lines
// (a script given as text or a list, or its `content`) and build.string.
bool keeps_templates(std::string_view parent_key, std::string_view key, const RecipeNode& value) {
  if (key == "script") return value.kind != RecipeNode::Kind::map || is_selector(value);
  return (parent_key == "script" && key == "content") || (parent_key == "build" && key == "string");
}

class Resolver {
 public:
  explicit Resolver(const ReadState& state) : state_(state) {}

  // `key` is the node's key in its mapping, `parent_key` that mapping's.
  // `keep_templates`: see keeps_templates(); selectors are chosen anyway.
  RecipeNode resolve(const RecipeNode& node, std::size_t depth, bool keep_templates = false,
                     std::string_view key = {}) {
    if (depth > state_.max_depth) state_.fail(RecipeError::Kind::too_large, node.position, "", "recipe nested too deeply");
    switch (node.kind) {
      case RecipeNode::Kind::null: return node;
      case RecipeNode::Kind::scalar: return scalar(node, keep_templates);
      case RecipeNode::Kind::sequence: {
        RecipeNode result;
        result.kind = RecipeNode::Kind::sequence;
        result.position = node.position;
        for (const auto& item : node.items) append(result, item, depth, keep_templates);
        return result;
      }
      case RecipeNode::Kind::map: {
        if (is_selector(node)) {
          // Selectors stand in lists (at any depth). rattler-build reads a
          // single source mapping as a list of one, so one may stand there too;
          // anywhere else it refuses `if` as an unknown field, and so does gpuenv.
          if (key != "source") {
            state_.fail(RecipeError::Kind::unknown_field, node.position, "if",
                        "a selector (if/then/else) stands in a list, not as the value of '" + std::string(key) + "':");
          }
          RecipeNode list;
          list.kind = RecipeNode::Kind::sequence;
          list.position = node.position;
          append(list, node, depth, keep_templates);
          return list;
        }
        RecipeNode result;
        result.kind = RecipeNode::Kind::map;
        result.position = node.position;
        for (const auto& [entry, value] : node.entries) {
          const bool raw = keep_templates || keeps_templates(key, entry, value);
          result.entries.push_back(RecipeEntry{entry, resolve(value, depth + 1, raw, entry)});
        }
        return result;
      }
    }
    return node;
  }

 private:
  // An item of a sequence: a selector's chosen branch is spliced in (a list
  // adds its items); an item that renders to nothing (`${{ "x" if win }}`
  // off Windows) is dropped, as rattler-build does.
  void append(RecipeNode& sequence, const RecipeNode& item, std::size_t depth, bool keep_templates) {
    if (is_selector(item)) {
      const RecipeNode* branch = choose(item);
      if (branch == nullptr) return;
      if (branch->kind == RecipeNode::Kind::sequence) {
        for (const auto& inner : branch->items) append(sequence, inner, depth + 1, keep_templates);
      } else if (branch->kind != RecipeNode::Kind::null) {
        append(sequence, *branch, depth + 1, keep_templates);
      }
      return;
    }
    RecipeNode resolved = resolve(item, depth + 1, keep_templates);
    if (!keep_templates && resolved.kind == RecipeNode::Kind::scalar && has_expression(item.text) &&
        resolved.value.kind() == Value::Kind::string && resolved.value.as_string().empty()) {
      return;
    }
    sequence.items.push_back(std::move(resolved));
  }

  const RecipeNode* choose(const RecipeNode& selector) {
    for (const auto& [key, value] : selector.entries) {
      if (key != "if" && key != "then" && key != "else") {
        state_.fail(RecipeError::Kind::unknown_field, value.position, key,
                    "a selector has only the keys if, then and else, not");
      }
    }
    const RecipeNode* then_branch = selector.find("then");
    if (then_branch == nullptr) state_.fail(RecipeError::Kind::missing_field, selector.position, "if", "a selector needs 'then' after");
    return condition_holds(*selector.find("if"), state_) ? then_branch : selector.find("else");
  }

  RecipeNode scalar(const RecipeNode& node, bool keep_templates) {
    RecipeNode result = node;
    if (keep_templates) {
      result.value = Value::string(node.text);
      return result;
    }
    if (!has_expression(node.text)) {
      result.value = node.plain ? plain_scalar_value(node) : Value::string(node.text);
      return result;
    }
    try {
      result.value = render_template(node.text, state_.context);
    } catch (const ExpressionError& error) {
      state_.fail_expression(node, error);
    }
    return result;
  }

  const ReadState& state_;
};

}  // namespace

bool condition_holds(const RecipeNode& condition, const ReadState& state) {
  if (condition.kind != RecipeNode::Kind::scalar) {
    state.fail(RecipeError::Kind::invalid_value, condition.position, "", "a selector's 'if' must be an expression");
  }
  try {
    const Value value = evaluate_expression(condition.text, state.context);
    if (value.is_undefined()) {
      throw ExpressionError(ExpressionError::Kind::undefined, condition.text, 0, value.undefined_name(), "undefined value");
    }
    return value.truthy();
  } catch (const ExpressionError& error) {
    state.fail_expression(condition, error);
  }
}

RecipeNode copy_yaml(const YAML::Node& node, const ReadState& state) {
  YamlCopier copier(state);
  return copier.copy(node, 0);
}

RecipeNode resolve(const RecipeNode& node, const ReadState& state, std::string_view key) {
  Resolver resolver(state);
  return resolver.resolve(node, 0, keeps_templates({}, key, node), key);
}

Value plain_scalar_value(const RecipeNode& node) {
  const std::string& text = node.text;
  if (text == "true") return Value::boolean(true);
  if (text == "false") return Value::boolean(false);
  std::int64_t number = 0;
  const char* first = text.data() + (!text.empty() && (text[0] == '+') ? 1 : 0);
  const auto result = std::from_chars(first, text.data() + text.size(), number);
  if (!text.empty() && result.ec == std::errc() && result.ptr == text.data() + text.size()) return Value::integer(number);
  return Value::string(text);
}

}  // namespace detail
}  // namespace gpuenv::recipe
