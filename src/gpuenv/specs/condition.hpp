// CEP 43 conditions: the value of a MatchSpec's `when=` key, a Python-like
// logical expression over match specs (`__cuda>=12 and (python>=3.10 or
// __win)`). `and` binds tighter than `or`, as in Python; parentheses group.
// A leaf is a match spec of its own, which must not carry a `when` itself.
// Evaluation is the caller's: a leaf on a virtual package is decided by the
// machine, one on a package by the solution (see solver/conditional_dependency).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::specs {

struct ConditionBuilder;

class Condition {
 public:
  enum class Kind : std::uint8_t { spec, all_of, any_of };

  // Throws SpecError("condition", text, reason, column).
  static Condition parse(std::string_view text, ParseMode mode = ParseMode::conda);

  Kind kind() const noexcept { return kind_; }
  // Kind::spec only.
  const MatchSpec& spec() const noexcept { return spec_; }
  // Kind::all_of / any_of: two or more.
  const std::vector<Condition>& operands() const noexcept { return operands_; }

  // Whether the condition holds, each leaf decided by `leaf_holds`.
  bool holds(const std::function<bool(const MatchSpec&)>& leaf_holds) const;
  // Every leaf, left to right.
  void for_each_spec(const std::function<void(const MatchSpec&)>& visit) const;

  // The canonical text: leaves as MatchSpec::str() prints them, `and` / `or`
  // with parentheses only where precedence needs them. Parses back to an
  // equal condition.
  std::string str() const;

  friend bool operator==(const Condition&, const Condition&) = default;

  // Internal to the specs module: the grammar, with the leaves parsed and the
  // failures reported by the caller (MatchSpec's parser reports both as its
  // own, at the column in the enclosing spec).
  using LeafParser = std::function<MatchSpec(std::string_view leaf)>;
  using FailureReporter = std::function<void(std::string_view reason, std::string_view where)>;
  static Condition parse_with(std::string_view text, const LeafParser& parse_leaf,
                              const FailureReporter& fail);

 private:
  friend struct ConditionBuilder;
  Kind kind_ = Kind::spec;
  MatchSpec spec_;
  std::vector<Condition> operands_;
};

}  // namespace gpuenv::specs
