#include "gpuenv/specs/string_matcher.hpp"

#include <algorithm>
#include <regex>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/spec_parsing.hpp"

namespace gpuenv::specs {

class StringMatcher::CompiledRegex {
 public:
  CompiledRegex(const std::string& pattern, Case case_mode)
      : regex_(pattern, case_mode == Case::insensitive ? flags | std::regex::icase : flags) {}

  // libstdc++'s __polynomial walks a breadth-first automaton: polynomial time,
  // and recursion bounded by the pattern rather than by the matched text.
  static constexpr auto flags =
      std::regex::ECMAScript | std::regex::optimize | std::regex_constants::__polynomial;

  bool search(std::string_view value) const {
    return std::regex_search(value.begin(), value.end(), regex_);
  }

 private:
  std::regex regex_;
};

namespace {

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string ascii_lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

bool is_regex_pattern(std::string_view pattern) {
  return pattern.size() >= 2 && pattern.front() == '^' && pattern.back() == '$';
}

// Patterns the regex engine cannot run safely; CEP 29 says advanced regexes
// SHOULD NOT be allowed. Returns why the pattern is refused, or "".
std::string unsafe_regex_reason(std::string_view pattern) {
  // libstdc++ compiles a pattern into a state per character and a copy per
  // repetition, so long patterns and big counts exhaust memory (rattler and
  // conda names and builds are at most 64 characters anyway).
  constexpr std::size_t max_pattern_length = 256;
  constexpr unsigned max_repetition_count = 99;
  if (pattern.size() > max_pattern_length) return "longer than 256 characters";
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '{') {
      unsigned count = 0;
      for (std::size_t j = i + 1; j < pattern.size() && pattern[j] != '}'; ++j) {
        if (pattern[j] == ',') {
          count = 0;
        } else if (pattern[j] >= '0' && pattern[j] <= '9') {
          count = std::min(count * 10 + static_cast<unsigned>(pattern[j] - '0'), 100000u);
          if (count > max_repetition_count) return "repetition counts above 99 are not supported";
        }
      }
    }
    if (c == '\\') {
      // The breadth-first engine has no back-references.
      if (i + 1 < pattern.size() && pattern[i + 1] >= '1' && pattern[i + 1] <= '9') {
        return "back-references are not supported";
      }
      ++i;
    }
  }
  return {};
}

}  // namespace

bool glob_matches(std::string_view pattern, std::string_view value, bool ignore_case) {
  const auto same = [ignore_case](char a, char b) {
    return ignore_case ? ascii_lower(a) == ascii_lower(b) : a == b;
  };
  // Classic two-pointer wildcard matching: remember the last `*` and the value
  // position it currently stands for; on a mismatch let that `*` eat one more
  // character. Every `*` only ever moves forward, so this is O(|p| * |v|) at
  // worst and linear for the usual one- or two-star build patterns.
  std::size_t p = 0;
  std::size_t v = 0;
  std::size_t star = std::string_view::npos;
  std::size_t star_value = 0;
  while (v < value.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_value = v;
    } else if (p < pattern.size() && same(pattern[p], value[v])) {
      ++p;
      ++v;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      v = ++star_value;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

StringMatcher::StringMatcher() = default;

// Builds a StringMatcher's private state; a failure is returned, not thrown.
class StringMatcherParser {
 public:
  using Case = StringMatcher::Case;
  using Kind = StringMatcher::Kind;
  using CompiledRegex = StringMatcher::CompiledRegex;

  // Fills `matcher` (a default one) in place: callers keep it where it lives.
  static detail::Failure parse(StringMatcher& matcher, std::string_view pattern, Case case_mode) {
    matcher.case_ = case_mode;
    if (is_regex_pattern(pattern)) {
      matcher.kind_ = Kind::regex;
      matcher.pattern_ = std::string(pattern);
      if (const auto reason = unsafe_regex_reason(pattern); !reason.empty()) {
        return SpecError("string pattern", pattern, "regular expression refused: " + reason);
      }
      // std::regex reports a bad pattern only by throwing.
      try {
        matcher.regex_ = std::make_shared<const CompiledRegex>(matcher.pattern_, case_mode);
      } catch (const std::regex_error& error) {
        return SpecError("string pattern", pattern,
                         std::string("not a valid regular expression (") + error.what() + ")");
      }
      return std::nullopt;
    }
    matcher.pattern_ = case_mode == Case::insensitive ? ascii_lowered(pattern) : std::string(pattern);
    if (matcher.pattern_.find_first_not_of('*') == std::string::npos && !pattern.empty()) {
      matcher.kind_ = Kind::any;
      matcher.pattern_.assign(1, '*');  // not = "*": g++ 12 warns falsely (-Wrestrict)
    } else if (matcher.pattern_.find('*') != std::string::npos) {
      matcher.kind_ = Kind::glob;
    } else {
      matcher.kind_ = Kind::exact;
    }
    return std::nullopt;
  }
};

StringMatcher StringMatcher::parse(std::string_view pattern, Case case_mode) {
  StringMatcher matcher;
  if (auto failed = StringMatcherParser::parse(matcher, pattern, case_mode)) throw std::move(*failed);
  return matcher;
}

detail::Failure detail::parse_string_matcher(StringMatcher& out, std::string_view pattern,
                                             StringMatcher::Case case_mode) {
  return StringMatcherParser::parse(out, pattern, case_mode);
}

StringMatcher StringMatcher::exact(std::string_view value, Case case_mode) {
  StringMatcher matcher;
  matcher.case_ = case_mode;
  matcher.kind_ = Kind::exact;
  matcher.pattern_ = case_mode == Case::insensitive ? ascii_lowered(value) : std::string(value);
  return matcher;
}

bool StringMatcher::matches(std::string_view value) const {
  const bool ignore_case = case_ == Case::insensitive;
  switch (kind_) {
    case Kind::any:
      return true;
    case Kind::exact:
      if (!ignore_case) return pattern_ == value;
      if (pattern_.size() != value.size()) return false;
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (pattern_[i] != ascii_lower(value[i])) return false;
      }
      return true;
    case Kind::glob:
      return glob_matches(pattern_, value, ignore_case);
    case Kind::regex:
      return regex_->search(value);
  }
  return false;
}

std::optional<std::string_view> StringMatcher::exact_value() const noexcept {
  if (kind_ == Kind::exact) return std::string_view(pattern_);
  return std::nullopt;
}

}  // namespace gpuenv::specs
