#include "gpuenv/recipe/recipe_fields.hpp"

#include <algorithm>
#include <charconv>

#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::recipe::detail {

void check_keys(const RecipeNode& map, std::initializer_list<std::string_view> allowed, std::string_view section,
                const ReadState& state) {
  for (const auto& [key, value] : map.entries) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      SourcePosition position = value.position;
      // The key sits before its value on the same line; point at the key when we can.
      if (position.column > key.size() + 2) position.column -= key.size() + 2;
      state.fail(RecipeError::Kind::unknown_field, position, key, "unknown field in " + std::string(section) + ":");
    }
  }
}

const RecipeNode& expect_map(const RecipeNode& node, std::string_view field, const ReadState& state) {
  if (node.kind != RecipeNode::Kind::map) {
    state.fail(RecipeError::Kind::invalid_value, node.position, node.text, std::string(field) + " must be a mapping, found");
  }
  return node;
}

std::string text_of(const RecipeNode& node, std::string_view field, const ReadState& state) {
  if (node.kind != RecipeNode::Kind::scalar || node.value.kind() == Value::Kind::list ||
      node.value.kind() == Value::Kind::map) {
    state.fail(RecipeError::Kind::invalid_value, node.position, node.text, std::string(field) + " must be text");
  }
  if (node.value.kind() == Value::Kind::string) return node.value.as_string();
  // A plain scalar read as a number or boolean is text as written here (a
  // sha256 of zeros is not the integer 0); a rendered one prints its value.
  return has_expression(node.text) ? node.value.display() : node.text;
}

std::optional<std::string> optional_text(const RecipeNode& map, std::string_view key, const ReadState& state) {
  const RecipeNode* node = map.find(key);
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return std::nullopt;
  return text_of(*node, key, state);
}

bool bool_of(const RecipeNode& node, std::string_view field, const ReadState& state) {
  if (node.kind == RecipeNode::Kind::scalar) {
    if (node.value.kind() == Value::Kind::boolean) return node.value.as_bool();
    if (node.value.kind() == Value::Kind::string && (node.value.as_string() == "true" || node.value.as_string() == "false")) {
      return node.value.as_string() == "true";
    }
  }
  state.fail(RecipeError::Kind::invalid_value, node.position, node.text,
             std::string(field) + " must be true or false (or a ${{ }} expression), found");
}

std::int64_t integer_of(const RecipeNode& node, std::string_view field, const ReadState& state) {
  if (node.kind == RecipeNode::Kind::scalar) {
    if (node.value.kind() == Value::Kind::integer) return node.value.as_integer();
    if (node.value.kind() == Value::Kind::string) {
      const std::string& text = node.value.as_string();
      std::int64_t number = 0;
      const auto result = std::from_chars(text.data(), text.data() + text.size(), number);
      if (!text.empty() && result.ec == std::errc() && result.ptr == text.data() + text.size()) return number;
    }
  }
  state.fail(RecipeError::Kind::invalid_value, node.position, node.text, std::string(field) + " must be an integer, found");
}

std::vector<std::string> text_list(const RecipeNode* node, std::string_view field, const ReadState& state) {
  std::vector<std::string> result;
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return result;
  if (node->kind == RecipeNode::Kind::scalar && node->value.kind() == Value::Kind::list) {
    for (const auto& item : node->value.as_list()) result.push_back(item.display());
    return result;
  }
  if (node->kind == RecipeNode::Kind::scalar) {
    result.push_back(text_of(*node, field, state));
    return result;
  }
  if (node->kind != RecipeNode::Kind::sequence) {
    state.fail(RecipeError::Kind::invalid_value, node->position, "", std::string(field) + " must be a list of text");
  }
  for (const auto& item : node->items) {
    if (item.kind == RecipeNode::Kind::null) continue;
    result.push_back(text_of(item, field, state));
  }
  return result;
}

namespace {

// Reads the JSON object pin() in expression_builtins.cpp prints: string
// values (with \" \\ \u00XX escapes) and `true`.
class PinJsonReader {
 public:
  explicit PinJsonReader(std::string_view text) : text_(text) {}

  std::optional<Pin> read() {
    Pin pin;
    if (!take('{')) return std::nullopt;
    const auto kind = string();
    if (!kind || !take(':') || !take('{')) return std::nullopt;
    if (*kind == "pin_subpackage") {
      pin.kind = Pin::Kind::subpackage;
    } else if (*kind == "pin_compatible") {
      pin.kind = Pin::Kind::compatible;
    } else {
      return std::nullopt;
    }
    while (true) {
      const auto key = string();
      if (!key || !take(':')) return std::nullopt;
      if (*key == "exact") {
        if (text_.substr(position_, 4) != "true") return std::nullopt;
        position_ += 4;
        pin.exact = true;
      } else {
        auto value = string();
        if (!value) return std::nullopt;
        if (*key == "name") pin.name = std::move(*value);
        else if (*key == "lower_bound") pin.lower_bound = std::move(*value);
        else if (*key == "upper_bound") pin.upper_bound = std::move(*value);
        else if (*key == "build") pin.build = std::move(*value);
        else return std::nullopt;
      }
      if (take('}')) break;
      if (!take(',')) return std::nullopt;
    }
    if (!take('}') || position_ != text_.size()) return std::nullopt;
    return pin;
  }

 private:
  bool take(char c) {
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  std::optional<std::string> string() {
    if (!take('"')) return std::nullopt;
    std::string value;
    while (position_ < text_.size()) {
      const char c = text_[position_++];
      if (c == '"') return value;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (position_ >= text_.size()) return std::nullopt;
      const char escaped = text_[position_++];
      if (escaped == 'u') {
        unsigned code = 0;
        const auto digits = text_.substr(position_, 4);
        const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), code, 16);
        if (digits.size() != 4 || result.ptr != digits.data() + 4 || code > 0x7f) return std::nullopt;
        value += static_cast<char>(code);
        position_ += 4;
      } else {
        value += escaped;
      }
    }
    return std::nullopt;
  }
  std::string_view text_;
  std::size_t position_ = 0;
};

}  // namespace

std::optional<Pin> parse_pin(std::string_view text) {
  if (!text.starts_with("{\"pin_")) return std::nullopt;
  return PinJsonReader(text).read();
}

Dependency dependency_of(const RecipeNode& node, std::string_view field, const ReadState& state) {
  Dependency dependency;
  dependency.position = node.position;
  const std::string text = text_of(node, field, state);
  if (auto pin = parse_pin(text)) {
    dependency.pin = std::move(pin);
    return dependency;
  }
  try {
    (void)specs::MatchSpec::parse(text);
  } catch (const specs::SpecError& error) {
    state.fail(RecipeError::Kind::invalid_value, node.position, text,
               "invalid match spec in " + std::string(field) + " (" + error.reason() + "):");
  }
  dependency.spec = text;
  return dependency;
}

std::vector<Dependency> dependency_list(const RecipeNode* node, std::string_view field, const ReadState& state) {
  std::vector<Dependency> result;
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return result;
  if (node->kind != RecipeNode::Kind::sequence) {
    state.fail(RecipeError::Kind::invalid_value, node->position, node->text, std::string(field) + " must be a list");
  }
  for (const auto& item : node->items) {
    if (item.kind == RecipeNode::Kind::null) continue;
    result.push_back(dependency_of(item, field, state));
  }
  return result;
}

std::vector<std::string> package_name_list(const RecipeNode* node, std::string_view field, const ReadState& state) {
  std::vector<std::string> names;
  for (const auto& dependency : dependency_list(node, field, state)) {
    if (dependency.pin) {
      names.push_back(dependency.pin->name);
      continue;
    }
    auto name = specs::MatchSpec::parse(dependency.spec).exact_name();
    if (!name) {
      state.fail(RecipeError::Kind::invalid_value, dependency.position, dependency.spec,
                 std::string(field) + " takes package names, found");
    }
    names.push_back(std::move(*name));
  }
  return names;
}

}  // namespace gpuenv::recipe::detail
