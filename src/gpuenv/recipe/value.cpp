#include "gpuenv/recipe/value.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

namespace gpuenv::recipe {

Value Value::undefined(std::string name) { return Value(Kind::undefined, std::move(name)); }
Value Value::silent_undefined() {
  Value value(Kind::undefined, std::string());
  value.silent_ = true;
  return value;
}
Value Value::none() { return Value(Kind::none, std::monostate{}); }
Value Value::boolean(bool value) { return Value(Kind::boolean, value); }
Value Value::integer(std::int64_t value) { return Value(Kind::integer, value); }
Value Value::floating(double value) { return Value(Kind::floating, value); }
Value Value::string(std::string value) { return Value(Kind::string, std::move(value)); }
Value Value::list(ValueList values) {
  return Value(Kind::list, std::make_shared<const ValueList>(std::move(values)));
}
Value Value::map(ValueMap entries) {
  // Stable sort, then keep the last of each run of equal keys: `{'a': 1, 'a': 2}` is {"a": 2}.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  ValueMap unique;
  for (auto& entry : entries) {
    if (!unique.empty() && unique.back().first == entry.first) {
      unique.back().second = std::move(entry.second);
    } else {
      unique.push_back(std::move(entry));
    }
  }
  return Value(Kind::map, std::make_shared<const ValueMap>(std::move(unique)));
}

std::int64_t Value::as_integer() const noexcept {
  if (kind_ == Kind::boolean) return as_bool() ? 1 : 0;
  if (kind_ == Kind::floating) {
    // Truncates like Rust's `as i64`: NaN is 0, out-of-range values saturate (never UB).
    const double value = std::get<double>(data_);
    if (std::isnan(value)) return 0;
    if (value >= 9.2233720368547758e18) return INT64_MAX;
    if (value <= -9.2233720368547758e18) return INT64_MIN;
    return static_cast<std::int64_t>(value);
  }
  return std::get<std::int64_t>(data_);
}

double Value::as_double() const noexcept {
  if (kind_ == Kind::floating) return std::get<double>(data_);
  return static_cast<double>(as_integer());
}

bool Value::truthy() const noexcept {
  switch (kind_) {
    case Kind::undefined:
    case Kind::none: return false;
    case Kind::boolean: return as_bool();
    case Kind::integer: return as_integer() != 0;
    case Kind::floating: return as_double() != 0.0;
    case Kind::string: return !as_string().empty();
    case Kind::list: return !as_list().empty();
    case Kind::map: return !as_map().empty();
  }
  return false;
}

std::string format_double(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[400];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  std::string text(buffer, result.ptr);
  if (text.find('.') == std::string::npos) text += ".0";
  return text;
}

namespace {

void append_quoted(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  out += '"';
}

}  // namespace

std::string Value::display() const {
  switch (kind_) {
    case Kind::undefined: return silent_ ? std::string() : std::string("undefined");
    case Kind::none: return "none";
    case Kind::boolean: return as_bool() ? "true" : "false";
    case Kind::integer: return std::to_string(as_integer());
    case Kind::floating: return format_double(as_double());
    case Kind::string: return as_string();
    case Kind::list: {
      std::string out = "[";
      for (const auto& item : as_list()) {
        if (out.size() > 1) out += ", ";
        out += item.nested_display();
      }
      return out + "]";
    }
    case Kind::map: {
      std::string out = "{";
      for (const auto& [key, item] : as_map()) {
        if (out.size() > 1) out += ", ";
        append_quoted(out, key);
        out += ": ";
        out += item.nested_display();
      }
      return out + "}";
    }
  }
  return {};
}

std::string Value::nested_display() const {
  if (kind_ != Kind::string) return display();
  std::string out;
  append_quoted(out, as_string());
  return out;
}

bool operator==(const Value& a, const Value& b) noexcept {
  if (a.is_number() && b.is_number()) {
    if (a.kind_ == Value::Kind::floating || b.kind_ == Value::Kind::floating) {
      return a.as_double() == b.as_double();
    }
    return a.as_integer() == b.as_integer();
  }
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Value::Kind::undefined:
    case Value::Kind::none: return true;
    case Value::Kind::string: return a.as_string() == b.as_string();
    case Value::Kind::list: return a.as_list() == b.as_list();
    case Value::Kind::map: return a.as_map() == b.as_map();
    default: return false;
  }
}

namespace {
int kind_rank(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::undefined: return 0;
    case Value::Kind::none: return 1;
    case Value::Kind::boolean:
    case Value::Kind::integer:
    case Value::Kind::floating: return 2;
    case Value::Kind::string: return 3;
    case Value::Kind::list: return 4;
    case Value::Kind::map: return 5;
  }
  return 0;
}
template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}
}  // namespace

int compare(const Value& a, const Value& b) noexcept {
  const int rank_a = kind_rank(a);
  const int rank_b = kind_rank(b);
  if (rank_a != rank_b) return three_way(rank_a, rank_b);
  switch (a.kind()) {
    case Value::Kind::boolean:
    case Value::Kind::integer:
    case Value::Kind::floating:
      if (a.kind() == Value::Kind::floating || b.kind() == Value::Kind::floating) {
        return three_way(a.as_double(), b.as_double());
      }
      return three_way(a.as_integer(), b.as_integer());
    case Value::Kind::string: return three_way(a.as_string(), b.as_string());
    case Value::Kind::list: {
      const auto& left = a.as_list();
      const auto& right = b.as_list();
      for (std::size_t i = 0; i < left.size() && i < right.size(); ++i) {
        if (const int order = compare(left[i], right[i]); order != 0) return order;
      }
      return three_way(left.size(), right.size());
    }
    default: return 0;
  }
}

}  // namespace gpuenv::recipe
