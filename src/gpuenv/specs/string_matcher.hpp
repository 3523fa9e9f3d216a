// conda's string matching for MatchSpec fields (name, build, license, channel
// patterns...): CEP 29 "String matching", conda's GlobStrMatch family.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gpuenv::specs {

// One pattern for one string field, compiled once when the spec is parsed:
//   `^...$`  a regular expression (ECMAScript flavour, searched in the value),
//   `a*b`    a glob: `*` matches any run of characters, everything else is literal,
//   `*`      matches everything,
//   other    exact equality.
// Values are immutable and cheap to copy (a compiled regex is shared).
class StringMatcher {
 public:
  enum class Kind : std::uint8_t { any, exact, glob, regex };
  // conda lower-cases names (GlobLowerStrMatch) and compares licenses without
  // regard to case (CaseInsensitiveStrMatch); builds and hashes keep their case.
  enum class Case : std::uint8_t { sensitive, insensitive };

  // Matches everything (`*`).
  StringMatcher();

  // Throws SpecError (kind "string pattern") for an invalid regular expression.
  static StringMatcher parse(std::string_view pattern, Case case_mode = Case::sensitive);
  // `value` taken literally even when it contains `*` or looks like a regex.
  static StringMatcher exact(std::string_view value, Case case_mode = Case::sensitive);

  bool matches(std::string_view value) const;

  Kind kind() const noexcept { return kind_; }
  Case case_mode() const noexcept { return case_; }
  bool is_any() const noexcept { return kind_ == Kind::any; }
  bool is_exact() const noexcept { return kind_ == Kind::exact; }
  // libmamba's GlobSpec::is_glob: anything but a regular expression.
  bool is_glob() const noexcept { return kind_ != Kind::regex; }
  bool is_regex() const noexcept { return kind_ == Kind::regex; }

  // The pattern as stored: lower-cased for Case::insensitive (except regexes,
  // which keep their text and are compiled case-insensitively).
  const std::string& str() const noexcept { return pattern_; }
  // conda's exact_value: the value when the pattern matches one string only.
  std::optional<std::string_view> exact_value() const noexcept;

  friend bool operator==(const StringMatcher& a, const StringMatcher& b) noexcept {
    if (a.kind_ == Kind::any || b.kind_ == Kind::any) return a.kind_ == b.kind_;
    return a.kind_ == b.kind_ && a.case_ == b.case_ && a.pattern_ == b.pattern_;
  }

 private:
  class CompiledRegex;
  friend class StringMatcherParser;

  std::string pattern_ = "*";
  Kind kind_ = Kind::any;
  Case case_ = Case::sensitive;
  std::shared_ptr<const CompiledRegex> regex_;
};

// `*` globbing without regular expressions (linear in practice, no allocation).
// With `ignore_case`, ASCII letters compare without regard to case.
bool glob_matches(std::string_view pattern, std::string_view value, bool ignore_case = false);

}  // namespace gpuenv::specs
