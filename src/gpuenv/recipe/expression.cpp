#include "gpuenv/recipe/expression.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "gpuenv/recipe/expression_functions.hpp"
#include "gpuenv/recipe/expression_syntax.hpp"

namespace gpuenv::recipe {
namespace {

using detail::SyntaxNode;
using Kind = ExpressionError::Kind;

// The env object (env.get, env.exists): a marker only reachable as the
// receiver of a method call.
constexpr std::string_view env_name = "env";

class Evaluator {
 public:
  Evaluator(std::string_view text, const EvaluationContext& context) : text_(text), context_(context) {}

  Value evaluate(const SyntaxNode& node) {
    switch (node.type) {
      case SyntaxNode::Type::literal: return node.literal;
      case SyntaxNode::Type::name: return name(node);
      case SyntaxNode::Type::list: {
        ValueList items;
        for (const auto& child : node.children) items.push_back(evaluate(*child));
        return Value::list(std::move(items));
      }
      case SyntaxNode::Type::map: return map(node);
      case SyntaxNode::Type::attribute: return attribute(node);
      case SyntaxNode::Type::index: return index(node);
      case SyntaxNode::Type::slice: return slice(node);
      case SyntaxNode::Type::call: return call(node);
      case SyntaxNode::Type::filter: {
        const Value operand = evaluate(*node.children[0]);
        return detail::apply_filter(node.text, operand, arguments(node, 1), site(node));
      }
      case SyntaxNode::Type::test:
      case SyntaxNode::Type::negative_test: {
        const Value operand = evaluate(*node.children[0]);
        const bool result = detail::apply_test(node.text, operand, arguments(node, 1), site(node));
        return Value::boolean(node.type == SyntaxNode::Type::test ? result : !result);
      }
      case SyntaxNode::Type::unary: return unary(node);
      case SyntaxNode::Type::binary: return binary(node);
      case SyntaxNode::Type::comparison: return comparison(node);
      case SyntaxNode::Type::logical_and: {
        // minijinja: `a and b` is b when both are true, else false.
        if (!truth(*node.children[0])) return Value::boolean(false);
        Value right = defined(*node.children[1]);
        return right.truthy() ? right : Value::boolean(false);
      }
      case SyntaxNode::Type::logical_or: {
        Value left = defined(*node.children[0]);
        if (left.truthy()) return left;
        return defined(*node.children[1]);
      }
      case SyntaxNode::Type::logical_not: return Value::boolean(!truth(*node.children[0]));
      case SyntaxNode::Type::conditional:
        if (truth(*node.children[1])) return evaluate(*node.children[0]);
        if (node.children.size() > 2) return evaluate(*node.children[2]);
        return Value::silent_undefined();
    }
    return Value::none();
  }

  // The value, refused when undefined: printing, comparing or computing with it.
  Value defined(const SyntaxNode& node) {
    Value value = evaluate(node);
    if (value.is_undefined()) fail_undefined(node, value);
    return value;
  }

  [[noreturn]] void fail_undefined(const SyntaxNode& node, const Value& value) const {
    const std::string_view source = node_text(node);
    const std::string& name = value.undefined_name();
    throw ExpressionError(Kind::undefined, text_, node.begin + 1, name.empty() ? source : std::string_view(name),
                          "undefined value");
  }

 private:
  std::string_view node_text(const SyntaxNode& node) const {
    return text_.substr(node.begin, node.end > node.begin ? node.end - node.begin : 0);
  }
  detail::CallSite site(const SyntaxNode& node) const {
    return detail::CallSite{text_, node.begin + 1, node_text(node), context_};
  }
  [[noreturn]] void fail(const SyntaxNode& node, Kind kind, std::string_view reason) const {
    throw ExpressionError(kind, text_, node.begin + 1, node_text(node), reason);
  }
  bool truth(const SyntaxNode& node) { return defined(node).truthy(); }

  Value name(const SyntaxNode& node) {
    if (node.text == env_name) fail(node, Kind::undefined, "env has only the methods get and exists:");
    if (context_.used_names != nullptr) context_.used_names->insert(node.text);
    if (auto value = detail::lookup_name(node.text, context_)) return *value;
    return Value::undefined(node.text);
  }

  Value map(const SyntaxNode& node) {
    ValueMap entries;
    for (std::size_t i = 0; i + 1 < node.children.size(); i += 2) {
      const Value key = defined(*node.children[i]);
      entries.emplace_back(key.display(), evaluate(*node.children[i + 1]));
    }
    return Value::map(std::move(entries));
  }

  Value attribute(const SyntaxNode& node) {
    const Value object = evaluate(*node.children[0]);
    if (object.kind() == Value::Kind::map) {
      for (const auto& [key, value] : object.as_map()) {
        if (key == node.text) return value;
      }
    } else if (object.kind() == Value::Kind::list || object.kind() == Value::Kind::string) {
      // `lst.0` indexes like `lst[0]`.
      std::int64_t position = 0;
      bool numeric = !node.text.empty();
      for (const char c : node.text) {
        if (c < '0' || c > '9' || position > 1'000'000'000) numeric = false;
        if (numeric) position = position * 10 + (c - '0');
      }
      if (numeric) return element(object, position);
    }
    if (object.is_undefined() && object.undefined_name().empty()) fail_undefined(node, object);
    return Value::undefined(object.is_undefined() ? object.undefined_name() : std::string(node_text(node)));
  }

  static Value element(const Value& object, std::int64_t position) {
    const bool is_list = object.kind() == Value::Kind::list;
    const auto size = static_cast<std::int64_t>(is_list ? object.as_list().size() : object.as_string().size());
    if (position < 0) position += size;
    if (position < 0 || position >= size) return Value::undefined();
    if (is_list) return object.as_list()[static_cast<std::size_t>(position)];
    return Value::string(std::string(1, object.as_string()[static_cast<std::size_t>(position)]));
  }

  Value index(const SyntaxNode& node) {
    const Value object = defined(*node.children[0]);
    const Value key = defined(*node.children[1]);
    Value result = Value::undefined();
    if (object.kind() == Value::Kind::map) {
      const std::string name = key.display();
      for (const auto& [entry, value] : object.as_map()) {
        if (entry == name) result = value;
      }
    } else if ((object.kind() == Value::Kind::list || object.kind() == Value::Kind::string) &&
               (key.kind() == Value::Kind::integer || key.kind() == Value::Kind::boolean)) {
      result = element(object, key.as_integer());
    } else {
      fail(node, Kind::invalid_operation, "cannot index this value:");
    }
    if (result.is_undefined()) return Value::undefined(std::string(node_text(node)));
    return result;
  }

  Value slice(const SyntaxNode& node) {
    const Value object = defined(*node.children[0]);
    std::int64_t bounds[3] = {0, 0, 1};
    bool given[3] = {false, false, false};
    for (int i = 0; i < 3; ++i) {
      const auto& child = node.children[static_cast<std::size_t>(i) + 1];
      if (!child) continue;
      const Value bound = defined(*child);
      if (bound.kind() == Value::Kind::none) continue;
      if (bound.kind() != Value::Kind::integer) fail(*child, Kind::invalid_operation, "slice bound is not an integer:");
      bounds[i] = bound.as_integer();
      given[i] = true;
    }
    if (bounds[2] == 0) fail(node, Kind::invalid_operation, "slice step cannot be zero:");
    const bool is_list = object.kind() == Value::Kind::list;
    if (!is_list && object.kind() != Value::Kind::string) fail(node, Kind::invalid_operation, "cannot slice this value:");
    const auto size = static_cast<std::int64_t>(is_list ? object.as_list().size() : object.as_string().size());
    const std::int64_t step = bounds[2];
    // Python's slice rules: negative bounds count from the end, then clamp.
    auto clamp = [&](std::int64_t value, bool present, std::int64_t fallback) {
      if (!present) return fallback;
      if (value < 0) value += size;
      if (step > 0) return std::min(std::max<std::int64_t>(value, 0), size);
      return std::min(std::max<std::int64_t>(value, -1), size - 1);
    };
    const std::int64_t start = clamp(bounds[0], given[0], step > 0 ? 0 : size - 1);
    const std::int64_t stop = clamp(bounds[1], given[1], step > 0 ? size : -1);
    ValueList items;
    std::string text;
    for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (is_list) {
        items.push_back(object.as_list()[static_cast<std::size_t>(i)]);
      } else {
        text += object.as_string()[static_cast<std::size_t>(i)];
      }
      if (step > 0 ? i > INT64_MAX - step : i < INT64_MIN - step) break;
    }
    return is_list ? Value::list(std::move(items)) : Value::string(std::move(text));
  }

  detail::Arguments arguments(const SyntaxNode& node, std::size_t first) {
    detail::Arguments result;
    for (std::size_t i = first; i < node.children.size(); ++i) {
      Value value = defined(*node.children[i]);
      if (node.keywords[i].empty()) {
        if (!result.keywords.empty()) fail(*node.children[i], Kind::syntax, "positional argument after a keyword argument:");
        result.positional.push_back(std::move(value));
      } else {
        result.keywords.emplace_back(node.keywords[i], std::move(value));
      }
    }
    return result;
  }

  Value call(const SyntaxNode& node) {
    const SyntaxNode& callee = *node.children[0];
    if (callee.type == SyntaxNode::Type::attribute && callee.children[0]->type == SyntaxNode::Type::name &&
        callee.children[0]->text == env_name) {
      return detail::call_env_method(callee.text, arguments(node, 1), site(node));
    }
    if (callee.type == SyntaxNode::Type::attribute) {
      // Values have no methods ('a'.upper() is refused, as in rattler-build);
      // an undefined receiver is reported as undefined first.
      const Value receiver = defined(*callee.children[0]);
      if (context_.string_prefix_methods && receiver.kind() == Value::Kind::string &&
          (callee.text == "startswith" || callee.text == "endswith")) {
        const auto given = arguments(node, 1);
        if (given.positional.size() != 1 || !given.keywords.empty() ||
            given.positional[0].kind() != Value::Kind::string) {
          fail(node, Kind::invalid_operation, "startswith/endswith take one string:");
        }
        const std::string& text = receiver.as_string();
        const std::string& affix = given.positional[0].as_string();
        return Value::boolean(callee.text == "startswith" ? text.starts_with(affix) : text.ends_with(affix));
      }
      fail(node, Kind::unknown_name, "unknown method:");
    }
    if (callee.type != SyntaxNode::Type::name) fail(node, Kind::invalid_operation, "this value cannot be called:");
    return detail::call_function(callee.text, arguments(node, 1), site(node));
  }

  Value unary(const SyntaxNode& node) {
    const Value operand = defined(*node.children[0]);
    if (!operand.is_number()) fail(node, Kind::invalid_operation, "a sign needs a number:");
    if (node.text == "+") return operand;
    if (operand.kind() == Value::Kind::floating) return Value::floating(-operand.as_double());
    if (operand.as_integer() == INT64_MIN) fail(node, Kind::limit, "integer overflow in");
    return Value::integer(-operand.as_integer());
  }

  Value binary(const SyntaxNode& node) {
    const Value left = defined(*node.children[0]);
    const Value right = defined(*node.children[1]);
    const detail::CallSite where = site(node);
    const std::string& op = node.text;
    if (op == "~") {
      std::string text = left.display();
      text += right.display();
      return where.bounded(Value::string(std::move(text)));
    }
    if (op == "+" && left.kind() == right.kind() &&
        (left.kind() == Value::Kind::string || left.kind() == Value::Kind::list)) {
      if (left.kind() == Value::Kind::string) return where.bounded(Value::string(left.as_string() + right.as_string()));
      ValueList items = left.as_list();
      items.insert(items.end(), right.as_list().begin(), right.as_list().end());
      return where.bounded(Value::list(std::move(items)));
    }
    if (op == "*" && (left.kind() == Value::Kind::string) != (right.kind() == Value::Kind::string) &&
        (left.kind() == Value::Kind::integer || right.kind() == Value::Kind::integer)) {
      const Value& text = left.kind() == Value::Kind::string ? left : right;
      const std::int64_t count = (left.kind() == Value::Kind::string ? right : left).as_integer();
      const std::size_t size = text.as_string().size();
      // Empty text repeats to nothing however large the count; the limit is
      // checked by division, as size * count can overflow.
      if (count <= 0 || size == 0) return Value::string("");
      if (static_cast<std::uint64_t>(count) > context_.limits.max_output_bytes / size) {
        fail(node, Kind::limit, "result longer than the output limit:");
      }
      std::string repeated;
      repeated.reserve(size * static_cast<std::size_t>(count));
      for (std::int64_t i = 0; i < count; ++i) repeated += text.as_string();
      return Value::string(std::move(repeated));
    }
    if (!left.is_number() || !right.is_number()) {
      fail(node, Kind::invalid_operation, "unsupported operand types for '" + op + "' in");
    }
    const bool floating = left.kind() == Value::Kind::floating || right.kind() == Value::Kind::floating;
    if (op == "/") return Value::floating(left.as_double() / right.as_double());
    if (floating) {
      const double a = left.as_double();
      const double b = right.as_double();
      if (op == "+") return Value::floating(a + b);
      if (op == "-") return Value::floating(a - b);
      if (op == "*") return Value::floating(a * b);
      if (op == "**") return Value::floating(std::pow(a, b));
      if (b == 0.0) fail(node, Kind::invalid_operation, "division by zero in");
      if (op == "//") return Value::floating(std::floor(a / b));
      return Value::floating(a - b * std::floor(a / b));  // %, Python's sign rule
    }
    const std::int64_t a = left.as_integer();
    const std::int64_t b = right.as_integer();
    std::int64_t result = 0;
    bool overflow = false;
    if (op == "+") {
      overflow = __builtin_add_overflow(a, b, &result);
    } else if (op == "-") {
      overflow = __builtin_sub_overflow(a, b, &result);
    } else if (op == "*") {
      overflow = __builtin_mul_overflow(a, b, &result);
    } else if (op == "**") {
      if (b < 0) fail(node, Kind::invalid_operation, "negative integer exponent in");
      result = 1;
      for (std::int64_t i = 0; i < b && !overflow; ++i) {
        overflow = __builtin_mul_overflow(result, a, &result);
        if (result == 0 || result == 1) break;  // 0**n and 1**n stay put: no need to loop
        if (result == -1) {
          result = (b % 2 == 0) ? 1 : -1;
          break;
        }
      }
    } else {
      if (b == 0) fail(node, Kind::invalid_operation, "division by zero in");
      if (a == INT64_MIN && b == -1) fail(node, Kind::limit, "integer overflow in");
      const std::int64_t quotient = a / b;
      const std::int64_t remainder = a % b;
      const bool adjust = remainder != 0 && ((remainder < 0) != (b < 0));
      result = op == "//" ? quotient - (adjust ? 1 : 0) : remainder + (adjust ? b : 0);
    }
    if (overflow) fail(node, Kind::limit, "integer overflow (beyond 64 bits) in");
    return Value::integer(result);
  }

  Value comparison(const SyntaxNode& node) {
    Value left = defined(*node.children[0]);
    for (std::size_t i = 0; i < node.operators.size(); ++i) {
      Value right = defined(*node.children[i + 1]);
      const std::string& op = node.operators[i];
      bool holds = false;
      if (op == "in" || op == "not in") {
        holds = contains(right, left, *node.children[i + 1]);
        if (op == "not in") holds = !holds;
      } else if (op == "==") {
        holds = left == right;
      } else if (op == "!=") {
        holds = !(left == right);
      } else {
        const int order = compare(left, right);
        holds = op == "<" ? order < 0 : op == "<=" ? order <= 0 : op == ">" ? order > 0 : order >= 0;
      }
      if (!holds) return Value::boolean(false);
      left = std::move(right);
    }
    return Value::boolean(true);
  }

  bool contains(const Value& container, const Value& item, const SyntaxNode& where) const {
    switch (container.kind()) {
      case Value::Kind::string:
        if (item.kind() != Value::Kind::string) fail(where, Kind::invalid_operation, "'in <string>' needs a string:");
        return container.as_string().find(item.as_string()) != std::string::npos;
      case Value::Kind::list:
        for (const auto& element : container.as_list()) {
          if (element == item) return true;
        }
        return false;
      case Value::Kind::map: {
        const std::string key = item.display();
        for (const auto& entry : container.as_map()) {
          if (entry.first == key) return true;
        }
        return false;
      }
      default: fail(where, Kind::invalid_operation, "'in' needs a string, list or mapping:");
    }
  }

  std::string_view text_;
  const EvaluationContext& context_;
};

}  // namespace

Value evaluate_expression(std::string_view expression, const EvaluationContext& context) {
  const auto tree = detail::parse_expression(expression, context.limits);
  Evaluator evaluator(expression, context);
  return evaluator.evaluate(*tree);
}

bool has_expression(std::string_view text) noexcept { return text.find("${{") != std::string_view::npos; }

Value render_template(std::string_view text, const EvaluationContext& context) {
  std::string output;
  std::size_t position = 0;
  std::size_t parts = 0;
  Value single;
  bool only_expression = true;
  while (position < text.size()) {
    const std::size_t open = text.find("${{", position);
    if (open == std::string_view::npos) {
      if (text.find_first_not_of(" \t\n\r", position) != std::string_view::npos) only_expression = false;
      output.append(text.substr(position));
      break;
    }
    if (text.substr(position, open - position).find_first_not_of(" \t\n\r") != std::string_view::npos) {
      only_expression = false;
    }
    output.append(text.substr(position, open - position));
    const std::size_t close = text.find("}}", open + 3);
    if (close == std::string_view::npos) {
      throw ExpressionError(ExpressionError::Kind::syntax, text.substr(open + 3), 0, text.substr(open),
                            "'${{' without a closing '}}':");
    }
    std::string_view inner = text.substr(open + 3, close - open - 3);
    const std::size_t leading = std::min(inner.find_first_not_of(" \t\n\r"), inner.size());
    inner.remove_prefix(leading);
    inner = inner.substr(0, inner.find_last_not_of(" \t\n\r") + 1);
    Value value;
    try {
      value = evaluate_expression(inner, context);
      if (value.is_undefined() && !value.is_silent()) {
        throw ExpressionError(ExpressionError::Kind::undefined, inner, 0, value.undefined_name(), "undefined value");
      }
    } catch (ExpressionError& error) {
      error.set_template_offset(open + 3 + leading);
      throw;
    }
    output += value.display();
    if (output.size() > context.limits.max_output_bytes) {
      throw ExpressionError(ExpressionError::Kind::limit, inner, 0, "", "rendered text longer than the output limit");
    }
    single = std::move(value);
    ++parts;
    position = close + 2;
  }
  if (parts == 1 && only_expression && !single.is_silent()) return single;
  return Value::string(std::move(output));
}

}  // namespace gpuenv::recipe
