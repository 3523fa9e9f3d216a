// The values `${{ }}` expressions compute with: the handful of types Jinja
// expressions in recipes produce (rattler-build evaluates them with
// minijinja), immutable and cheap to copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gpuenv::recipe {

class Value;
using ValueList = std::vector<Value>;
// Keys stay sorted by name: minijinja prints maps in key order.
using ValueMap = std::vector<std::pair<std::string, Value>>;

class Value {
 public:
  enum class Kind : std::uint8_t { undefined, none, boolean, integer, floating, string, list, map };

  // An undefined value remembers the name that produced it, for the error
  // that names it when it is used.
  static Value undefined(std::string name = {});
  // `'a' if false` has no else branch: undefined, but printed as ''.
  static Value silent_undefined();
  static Value none();
  static Value boolean(bool value);
  static Value integer(std::int64_t value);
  static Value floating(double value);
  static Value string(std::string value);
  static Value list(ValueList values);
  static Value map(ValueMap entries);  // sorts and keeps the last of equal keys

  Value() : Value(none()) {}

  Kind kind() const noexcept { return kind_; }
  bool is_undefined() const noexcept { return kind_ == Kind::undefined; }
  bool is_number() const noexcept {
    return kind_ == Kind::boolean || kind_ == Kind::integer || kind_ == Kind::floating;
  }
  bool is_silent() const noexcept { return is_undefined() && silent_; }

  bool as_bool() const noexcept { return std::get<bool>(data_); }
  std::int64_t as_integer() const noexcept;  // booleans count as 0 and 1
  double as_double() const noexcept;         // any number
  const std::string& as_string() const noexcept { return std::get<std::string>(data_); }
  const ValueList& as_list() const noexcept { return *std::get<std::shared_ptr<const ValueList>>(data_); }
  const ValueMap& as_map() const noexcept { return *std::get<std::shared_ptr<const ValueMap>>(data_); }
  // For an undefined value: the name it came from ("" when none).
  const std::string& undefined_name() const noexcept { return std::get<std::string>(data_); }

  // Jinja truthiness; callers refuse undefined values before asking.
  bool truthy() const noexcept;
  // The text `${{ value }}` prints: strings bare, true/false/none, floats
  // always with a fraction ("3.0"), lists and maps JSON-like with quoted strings.
  std::string display() const;
  // A nested value's form inside a printed list or map (strings quoted).
  std::string nested_display() const;

  friend bool operator==(const Value& a, const Value& b) noexcept;
  // minijinja's ordering: numbers by value, strings by bytes, lists
  // element-wise; values of different kinds by kind (none < number < string
  // < list < map).
  friend int compare(const Value& a, const Value& b) noexcept;

 private:
  using Data = std::variant<std::monostate, bool, std::int64_t, double, std::string,
                            std::shared_ptr<const ValueList>, std::shared_ptr<const ValueMap>>;
  Value(Kind kind, Data data) : kind_(kind), data_(std::move(data)) {}
  Kind kind_;
  bool silent_ = false;
  Data data_;
};

// The printed form of a double as Rust prints an f64: shortest round trip,
// never an exponent, ".0" on whole numbers, "inf", "-inf", "NaN".
std::string format_double(double value);

}  // namespace gpuenv::recipe
