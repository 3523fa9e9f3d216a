#include "gpuenv/recipe/expression_functions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version.hpp"
#include "gpuenv/specs/version_spec.hpp"

namespace gpuenv::recipe::detail {
namespace {

using Kind = ExpressionError::Kind;

const Value& require_defined(const Value& value, const CallSite& site) {
  if (value.is_undefined()) {
    throw ExpressionError(Kind::undefined, site.expression, site.column,
                          value.undefined_name().empty() ? site.offending : std::string_view(value.undefined_name()),
                          "undefined value");
  }
  return value;
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\n\r\f\v");
  return std::string(text.substr(first, last - first + 1));
}

ValueList items_of(const Value& value, const CallSite& site) {
  switch (value.kind()) {
    case Value::Kind::list: return value.as_list();
    case Value::Kind::string: {
      ValueList characters;
      for (const char c : value.as_string()) characters.push_back(Value::string(std::string(1, c)));
      return characters;
    }
    case Value::Kind::map: {
      ValueList keys;
      for (const auto& entry : value.as_map()) keys.push_back(Value::string(entry.first));
      return keys;
    }
    default: site.fail(Kind::invalid_operation, "value is not a sequence in");
  }
}

Value to_integer(const Value& value, const CallSite& site) {
  if (value.is_number()) return Value::integer(value.as_integer());
  if (value.kind() != Value::Kind::string) site.fail(Kind::invalid_operation, "cannot convert to an integer in");
  // minijinja parses the text as an integer, else as a float and truncates.
  const std::string& text = value.as_string();
  char* end = nullptr;
  errno = 0;
  const long long whole = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && end == text.c_str() + text.size() && errno == 0 && text.front() != ' ') {
    return Value::integer(whole);
  }
  const double number = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || text.front() == ' ' || text.find_first_of("xXnN") != std::string::npos) {
    site.fail(Kind::invalid_operation, "invalid number literal in");
  }
  return Value::integer(Value::floating(number).as_integer());
}

// First two dot-separated parts of the printed value, joined: 1.2.3 -> 12.
Value version_to_buildstring(const Value& value) {
  const std::string text = value.display();
  const auto first_dot = text.find('.');
  if (first_dot == std::string::npos) return Value::string(text);
  const auto second_dot = text.find('.', first_dot + 1);
  return Value::string(text.substr(0, first_dot) + text.substr(first_dot + 1, second_dot - first_dot - 1));
}

}  // namespace

const Value& CallSite::bounded(const Value& value) const {
  if ((value.kind() == Value::Kind::string && value.as_string().size() > context.limits.max_output_bytes) ||
      (value.kind() == Value::Kind::list && value.as_list().size() > context.limits.max_output_items)) {
    fail(Kind::limit, "result larger than the output limit in");
  }
  return value;
}

Value apply_filter(std::string_view name, const Value& operand, const Arguments& arguments, const CallSite& site) {
  if (name == "default") {
    const Parameters parameters(arguments, {"value", "boolean"}, 0, site);
    const Value fallback = parameters[0].value_or(Value::string(""));
    const bool when_false = parameters[1] && parameters[1]->truthy();
    if (operand.is_undefined() || (when_false && !operand.truthy())) return fallback;
    return operand;
  }
  static constexpr std::string_view known[] = {"version_to_buildstring", "lower", "upper", "trim", "replace", "split",
                                               "join", "first", "last", "length", "count", "int", "abs", "min",
                                               "max", "sort", "reverse", "unique", "list"};
  if (std::find(std::begin(known), std::end(known), name) == std::end(known)) {
    site.fail(Kind::unknown_name, "unknown filter '" + std::string(name) + "' in");
  }
  require_defined(operand, site);
  if (name == "version_to_buildstring") {
    const Parameters parameters(arguments, {}, 0, site);
    return version_to_buildstring(operand);
  }
  if (name == "lower" || name == "upper") {
    const Parameters parameters(arguments, {}, 0, site);
    std::string text = operand.display();
    for (char& c : text) c = name == "lower" ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                                             : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return Value::string(std::move(text));
  }
  if (name == "trim") {
    const Parameters parameters(arguments, {}, 0, site);
    return Value::string(trimmed(operand.display()));
  }
  if (name == "replace") {
    const Parameters parameters(arguments, {"old", "new"}, 2, site);
    const std::string& old_text = expect_string(*parameters[0], site, "the text to replace");
    const std::string& new_text = expect_string(*parameters[1], site, "the replacement");
    const std::string text = operand.display();
    std::string result;
    std::size_t position = 0;
    if (old_text.empty()) {
      // Python's rule: the replacement goes around every character.
      for (const char c : text) {
        result += new_text;
        result += c;
        if (result.size() > site.context.limits.max_output_bytes) site.fail(Kind::limit, "result larger than the output limit in");
      }
      return Value::string(result + new_text);
    }
    while (true) {
      const std::size_t found = text.find(old_text, position);
      result.append(text, position, found == std::string::npos ? std::string::npos : found - position);
      if (found == std::string::npos) break;
      result += new_text;
      if (result.size() > site.context.limits.max_output_bytes) site.fail(Kind::limit, "result larger than the output limit in");
      position = found + old_text.size();
    }
    return Value::string(std::move(result));
  }
  if (name == "split") {
    const Parameters parameters(arguments, {"sep", "maxsplits"}, 0, site);
    const std::string text = operand.display();
    ValueList parts;
    if (!parameters[0] || parameters[0]->kind() == Value::Kind::none) {
      std::size_t position = 0;
      while (true) {
        position = text.find_first_not_of(" \t\n\r\f\v", position);
        if (position == std::string::npos) break;
        const std::size_t end = text.find_first_of(" \t\n\r\f\v", position);
        parts.push_back(Value::string(text.substr(position, end == std::string::npos ? end : end - position)));
        position = end;
      }
      return Value::list(std::move(parts));
    }
    const std::string& separator = expect_string(*parameters[0], site, "the separator");
    if (separator.empty()) {
      // minijinja splits around the empty match at each end and between characters.
      parts.push_back(Value::string(""));
      for (const char c : text) parts.push_back(Value::string(std::string(1, c)));
      parts.push_back(Value::string(""));
      return site.bounded(Value::list(std::move(parts)));
    }
    std::size_t position = 0;
    while (true) {
      const std::size_t found = text.find(separator, position);
      parts.push_back(Value::string(text.substr(position, found == std::string::npos ? found : found - position)));
      if (found == std::string::npos) break;
      position = found + separator.size();
    }
    return site.bounded(Value::list(std::move(parts)));
  }
  if (name == "join") {
    const Parameters parameters(arguments, {"d"}, 0, site);
    const std::string separator =
        parameters[0] && parameters[0]->kind() != Value::Kind::none ? parameters[0]->display() : std::string();
    std::string result;
    bool first = true;
    for (const auto& item : items_of(operand, site)) {
      if (!first) result += separator;
      first = false;
      result += item.display();
      if (result.size() > site.context.limits.max_output_bytes) site.fail(Kind::limit, "result larger than the output limit in");
    }
    return Value::string(std::move(result));
  }
  if (name == "first" || name == "last") {
    const Parameters parameters(arguments, {}, 0, site);
    const ValueList items = items_of(operand, site);
    if (items.empty()) return Value::undefined(std::string(site.offending));
    return name == "first" ? items.front() : items.back();
  }
  if (name == "length" || name == "count") {
    const Parameters parameters(arguments, {}, 0, site);
    if (operand.kind() == Value::Kind::string) return Value::integer(static_cast<std::int64_t>(operand.as_string().size()));
    return Value::integer(static_cast<std::int64_t>(items_of(operand, site).size()));
  }
  if (name == "int") {
    const Parameters parameters(arguments, {}, 0, site);
    return to_integer(operand, site);
  }
  if (name == "abs") {
    const Parameters parameters(arguments, {}, 0, site);
    if (operand.kind() == Value::Kind::floating) return Value::floating(std::fabs(operand.as_double()));
    if (!operand.is_number()) site.fail(Kind::invalid_operation, "abs needs a number in");
    if (operand.as_integer() == INT64_MIN) site.fail(Kind::limit, "integer overflow in");
    return Value::integer(std::llabs(operand.as_integer()));
  }
  if (name == "min" || name == "max" || name == "sort" || name == "reverse" || name == "unique" || name == "list") {
    const Parameters parameters(arguments, {}, 0, site);
    ValueList items = items_of(operand, site);
    if (name == "list") return Value::list(std::move(items));
    if (name == "reverse") {
      if (operand.kind() == Value::Kind::string) return Value::string(std::string(operand.as_string().rbegin(), operand.as_string().rend()));
      std::reverse(items.begin(), items.end());
      return Value::list(std::move(items));
    }
    if (name == "unique") {
      ValueList unique;
      for (auto& item : items) {
        if (std::find(unique.begin(), unique.end(), item) == unique.end()) unique.push_back(std::move(item));
      }
      return Value::list(std::move(unique));
    }
    std::stable_sort(items.begin(), items.end(), [](const Value& a, const Value& b) { return compare(a, b) < 0; });
    if (name == "sort") return Value::list(std::move(items));
    if (items.empty()) return Value::undefined(std::string(site.offending));
    return name == "min" ? items.front() : items.back();
  }
  site.fail(Kind::unknown_name, "unknown filter '" + std::string(name) + "' in");
}

bool apply_test(std::string_view name, const Value& operand, const Arguments& arguments, const CallSite& site) {
  static constexpr std::string_view known[] = {"defined", "undefined", "none",     "string",  "number",
                                               "integer", "float",     "boolean",  "true",    "false",
                                               "sequence", "mapping",  "even",     "odd"};
  if (std::find(std::begin(known), std::end(known), name) == std::end(known)) {
    site.fail(Kind::unknown_name, "unknown test '" + std::string(name) + "' in");
  }
  const Parameters parameters(arguments, {}, 0, site);
  if (name == "defined") return !operand.is_undefined();
  if (name == "undefined") return operand.is_undefined();
  require_defined(operand, site);
  const auto kind = operand.kind();
  if (name == "none") return kind == Value::Kind::none;
  if (name == "string") return kind == Value::Kind::string;
  if (name == "number") return kind == Value::Kind::integer || kind == Value::Kind::floating;
  if (name == "integer") return kind == Value::Kind::integer;
  if (name == "float") return kind == Value::Kind::floating;
  if (name == "boolean") return kind == Value::Kind::boolean;
  if (name == "true") return kind == Value::Kind::boolean && operand.as_bool();
  if (name == "false") return kind == Value::Kind::boolean && !operand.as_bool();
  if (name == "sequence") return kind == Value::Kind::list || kind == Value::Kind::string;
  if (name == "mapping") return kind == Value::Kind::map;
  if (name == "even" || name == "odd") {
    if (kind != Value::Kind::integer) return false;
    return (operand.as_integer() % 2 == 0) == (name == "even");
  }
  site.fail(Kind::unknown_name, "unknown test '" + std::string(name) + "' in");
}

}  // namespace gpuenv::recipe::detail
