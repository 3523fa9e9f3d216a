#include <gtest/gtest.h>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/string_matcher.hpp"

namespace gpuenv::specs {
namespace {

using Case = StringMatcher::Case;
using Kind = StringMatcher::Kind;

TEST(StringMatcher, DefaultMatchesEverything) {
  const StringMatcher any;
  EXPECT_TRUE(any.is_any());
  EXPECT_EQ(any.str(), "*");
  EXPECT_TRUE(any.matches(""));
  EXPECT_TRUE(any.matches("anything"));
  EXPECT_FALSE(any.exact_value());
}

TEST(StringMatcher, KindsFollowConda) {
  EXPECT_EQ(StringMatcher::parse("py27_0").kind(), Kind::exact);
  EXPECT_EQ(StringMatcher::parse("py*_0").kind(), Kind::glob);
  EXPECT_EQ(StringMatcher::parse("*").kind(), Kind::any);
  EXPECT_EQ(StringMatcher::parse("**").kind(), Kind::any);
  EXPECT_EQ(StringMatcher::parse("^py.*$").kind(), Kind::regex);
  // Only ^...$ is a regex; a lone ^ or $ is literal text.
  EXPECT_EQ(StringMatcher::parse("^py").kind(), Kind::exact);
  EXPECT_EQ(StringMatcher::parse("^").kind(), Kind::exact);
}

TEST(StringMatcher, ExactMatching) {
  const auto build = StringMatcher::parse("py27_0");
  EXPECT_TRUE(build.matches("py27_0"));
  EXPECT_FALSE(build.matches("py27_00"));
  EXPECT_FALSE(build.matches("PY27_0"));
  EXPECT_EQ(build.exact_value(), "py27_0");
}

TEST(StringMatcher, GlobMatching) {
  const auto glob = StringMatcher::parse("py*_0");
  EXPECT_TRUE(glob.matches("py27_0"));
  EXPECT_TRUE(glob.matches("py_0"));
  EXPECT_FALSE(glob.matches("py27_1"));
  EXPECT_FALSE(glob.matches("xpy27_0"));
  EXPECT_FALSE(glob.exact_value());
  // Dots and other regex characters are literal in a glob.
  const auto dotted = StringMatcher::parse("py3.10_cuda11.8*");
  EXPECT_TRUE(dotted.matches("py3.10_cuda11.8_cudnn8.7.0_0"));
  EXPECT_FALSE(dotted.matches("py3x10_cuda11.8_cudnn8.7.0_0"));
  EXPECT_TRUE(StringMatcher::parse("*mkl").matches("blas_mkl"));
  EXPECT_TRUE(StringMatcher::parse("*_habc123_3").matches("red_habc123_3"));
  EXPECT_FALSE(StringMatcher::parse("*_habc123_3").matches("blue_hdef1234_3"));
}

TEST(StringMatcher, GlobMatchesFunction) {
  EXPECT_TRUE(glob_matches("", ""));
  EXPECT_FALSE(glob_matches("", "a"));
  EXPECT_TRUE(glob_matches("*", ""));
  EXPECT_TRUE(glob_matches("a*b*c", "axxbyyc"));
  EXPECT_TRUE(glob_matches("a*b*c", "abc"));
  EXPECT_FALSE(glob_matches("a*b*c", "acb"));
  EXPECT_TRUE(glob_matches("*a*a*a*", "banana a"));
  EXPECT_FALSE(glob_matches("A*", "abc"));
  EXPECT_TRUE(glob_matches("A*", "abc", true));
  // A long value with a pattern that almost matches stays fast (no backtracking blow-up).
  const std::string long_value(20000, 'a');
  EXPECT_FALSE(glob_matches("*a*a*a*a*a*b", long_value));
}

TEST(StringMatcher, CaseInsensitiveLowersPatternAndValue) {
  const auto license = StringMatcher::parse("*GP*", Case::insensitive);
  EXPECT_EQ(license.str(), "*gp*");
  EXPECT_TRUE(license.matches("LGPL"));
  EXPECT_TRUE(license.matches("lgpl"));
  const auto exact = StringMatcher::parse("LGPL", Case::insensitive);
  EXPECT_TRUE(exact.matches("lgpl"));
  EXPECT_TRUE(exact.matches("LgPl"));
  EXPECT_FALSE(exact.matches("LGPLv3"));
}

TEST(StringMatcher, Regex) {
  const auto regex = StringMatcher::parse("^.*(accelerate|mkl)$");
  EXPECT_TRUE(regex.is_regex());
  EXPECT_FALSE(regex.is_glob());
  EXPECT_TRUE(regex.matches("blas_mkl"));
  EXPECT_TRUE(regex.matches("accelerate"));
  EXPECT_FALSE(regex.matches("openblas"));
  EXPECT_FALSE(regex.exact_value());
  // Insensitive regexes keep their text (\D must not become \d) and ignore case.
  const auto name = StringMatcher::parse("^PY\\D+$", Case::insensitive);
  EXPECT_EQ(name.str(), "^PY\\D+$");
  EXPECT_TRUE(name.matches("python"));
  EXPECT_FALSE(name.matches("py3"));
}

TEST(StringMatcher, InvalidRegexThrowsSpecError) {
  try {
    (void)StringMatcher::parse("^py(thon$");
    FAIL() << "an unbalanced regex was accepted";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.input(), "^py(thon$");
    EXPECT_NE(std::string(error.what()).find("regular expression"), std::string::npos);
  }
}

TEST(StringMatcher, RegexesStayBoundedInTimeAndSize) {
  for (const char* pattern : {"^(a)\\1$", "^a{1000}$", "^x{2,100000}$"}) {
    EXPECT_THROW((void)StringMatcher::parse(pattern), SpecError) << pattern;
  }
  EXPECT_THROW((void)StringMatcher::parse("^" + std::string(300, 'a') + "$"), SpecError);
  // Lookahead (conda's merged build patterns use it) still works.
  EXPECT_TRUE(StringMatcher::parse("^(?=.*py3)(?:.*_0)$").matches("py310_0"));
  EXPECT_FALSE(StringMatcher::parse("^(?=.*py3)(?:.*_0)$").matches("py27_0"));
  // A failing match against a long value finishes quickly.
  // Patterns a backtracking engine takes exponential time on finish quickly.
  EXPECT_FALSE(StringMatcher::parse("^(a|b)*c$").matches(std::string(5000, 'a')));
  EXPECT_FALSE(StringMatcher::parse("^(a*)*b$").matches(std::string(40, 'a')));
  EXPECT_FALSE(StringMatcher::parse("^(a|aa)+$").matches(std::string(40, 'a') + "b"));
  for (const char* pattern : {"^.*(accelerate|mkl)$", "^py(thon)?3[0-9]*$", "^(?=.*a)(?:.*b)$",
                              "^[(*]+$", "^a{2,3}(b|c)$"}) {
    EXPECT_NO_THROW((void)StringMatcher::parse(pattern)) << pattern;
  }
}

TEST(StringMatcher, ExactFactoryKeepsStarsLiteral) {
  const auto literal = StringMatcher::exact("a*b");
  EXPECT_TRUE(literal.is_exact());
  EXPECT_TRUE(literal.matches("a*b"));
  EXPECT_FALSE(literal.matches("axb"));
  EXPECT_TRUE(StringMatcher::exact("A*B", Case::insensitive).matches("a*b"));
}

TEST(StringMatcher, EqualityComparesPatterns) {
  EXPECT_EQ(StringMatcher::parse("py*"), StringMatcher::parse("py*"));
  EXPECT_NE(StringMatcher::parse("py*"), StringMatcher::parse("py*", Case::insensitive));
  EXPECT_NE(StringMatcher::parse("py*"), StringMatcher::parse("py"));
  // Copies share the compiled regex and still match.
  const auto original = StringMatcher::parse("^a.c$");
  const StringMatcher copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy, original);
  EXPECT_TRUE(copy.matches("abc"));
}

}  // namespace
}  // namespace gpuenv::specs
