// Filters, tests, functions and names of `${{ }}` expressions (the lists are
// in expression.hpp). Internal to the recipe module.
#pragma once

#include <cstddef>
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuenv/recipe/expression.hpp"

namespace gpuenv::recipe::detail {

// Where a call is, for its errors.
struct CallSite {
  std::string_view expression;
  std::size_t column = 0;      // 1-based
  std::string_view offending;  // the call's text
  const EvaluationContext& context;

  [[noreturn]] void fail(ExpressionError::Kind kind, std::string_view reason) const {
    throw ExpressionError(kind, expression, column, offending, reason);
  }
  // Refuses strings and lists longer than the context's limits.
  const Value& bounded(const Value& value) const;
};

struct Arguments {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
};

// The arguments of one call matched to its parameter names, Python style.
class Parameters {
 public:
  Parameters(const Arguments& arguments, std::initializer_list<std::string_view> names, std::size_t required,
             const CallSite& site)
      : values_(names.size()) {
    if (arguments.positional.size() > names.size()) site.fail(ExpressionError::Kind::invalid_operation, "too many arguments in");
    for (std::size_t i = 0; i < arguments.positional.size(); ++i) values_[i] = arguments.positional[i];
    for (const auto& [keyword, value] : arguments.keywords) {
      const auto found = std::find(names.begin(), names.end(), keyword);
      if (found == names.end()) site.fail(ExpressionError::Kind::invalid_operation, "unknown keyword argument '" + keyword + "' in");
      values_[static_cast<std::size_t>(found - names.begin())] = value;
    }
    for (std::size_t i = 0; i < required; ++i) {
      if (!values_[i]) site.fail(ExpressionError::Kind::invalid_operation, "missing argument in");
    }
  }
  const std::optional<Value>& operator[](std::size_t i) const { return values_[i]; }

 private:
  std::vector<std::optional<Value>> values_;
};

inline const std::string& expect_string(const Value& value, const CallSite& site, std::string_view what) {
  if (value.kind() != Value::Kind::string) site.fail(ExpressionError::Kind::invalid_operation, std::string(what) + " must be a string in");
  return value.as_string();
}

Value apply_filter(std::string_view name, const Value& operand, const Arguments& arguments, const CallSite& site);
bool apply_test(std::string_view name, const Value& operand, const Arguments& arguments, const CallSite& site);
Value call_function(std::string_view name, const Arguments& arguments, const CallSite& site);
Value call_env_method(std::string_view method, const Arguments& arguments, const CallSite& site);

// A name's value: variables, variant keys, the platforms and their booleans;
// nullopt when the name is none of these.
std::optional<Value> lookup_name(std::string_view name, const EvaluationContext& context);

}  // namespace gpuenv::recipe::detail
