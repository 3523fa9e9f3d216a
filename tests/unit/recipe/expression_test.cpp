// `${{ }}` expressions against what rattler-build 0.x renders for the same
// text (each expected printed form was taken from its render API; see
// rattler_differential_test.cpp for the live comparison).
#include <gtest/gtest.h>

#include <chrono>

#include <string>

#include "expression_cases.hpp"
#include "gpuenv/recipe/expression.hpp"

namespace gpuenv::recipe {
namespace {

using testing::sample_context;
using testing::rattler_build_cases;
using testing::rattler_build_errors;

std::string printed(std::string_view expression, const EvaluationContext& context = sample_context()) {
  return render_template("${{ " + std::string(expression) + " }}", context).display();
}

TEST(RecipeExpression, PrintsWhatRattlerBuildPrints) {
  for (const auto& [expression, expected] : rattler_build_cases) {
    SCOPED_TRACE(expression);
    try {
      EXPECT_EQ(printed(expression), expected);
    } catch (const ExpressionError& error) {
      ADD_FAILURE() << error.what();
    }
  }
}

TEST(RecipeExpression, RefusesWhatRattlerBuildRefuses) {
  for (const auto& [expression, kind] : rattler_build_errors) {
    SCOPED_TRACE(expression);
    try {
      const std::string result = printed(expression);
      ADD_FAILURE() << "accepted, printed '" << result << "'";
    } catch (const ExpressionError& error) {
      EXPECT_EQ(error.kind(), kind) << error.what();
    }
  }
}

TEST(RecipeExpression, StdlibWithoutVariantSaysWhichKeyToAdd) {
  EvaluationContext context = sample_context();
  context.variant.erase("c_stdlib");
  try {
    printed("stdlib('c')", context);
    FAIL() << "accepted";
  } catch (const ExpressionError& error) {
    EXPECT_NE(std::string(error.what()).find("c_stdlib"), std::string::npos) << error.what();
  }
}

// conda-forge's variant values are specs ("3.12.* *_cpython"): match()
// takes their first word without the trailing ".*", as rattler-build does
// (it had read every such value as no version, so every match was false).
TEST(RecipeExpression, MatchReadsAVariantValueThatIsASpecAsItsVersion) {
  EvaluationContext context = sample_context();
  context.variant["python"] = "3.12.* *_cpython";
  EXPECT_EQ(printed("match(python, '<3.13')", context), "true");
  EXPECT_EQ(printed("match(python, '>=3.13')", context), "false");
  context.variant["python"] = "3.13.* *_cp313";
  EXPECT_EQ(printed("match(python, '>=3.13')", context), "true");
  context.variant["python"] = "3.10";
  EXPECT_EQ(printed("match(python, '3.10.*')", context), "true");
  context.variant["python"] = "3..0";
  EXPECT_THROW(printed("match(python, '>=3')", context), ExpressionError);
}

TEST(RecipeExpression, PlatformBooleansAndDefaultsFollowTheTargetPlatform) {
  const auto booleans = "[linux, osx, win, unix, x86_64, aarch64, arm64, ppc64le, s390x, linux64, linux32, "
                        "win64, win32, osx64, x86, emscripten, wasm32]";
  const auto toolchain = "compiler('c') ~ ' ' ~ compiler('cxx') ~ ' ' ~ compiler('fortran')";
  const auto tests = "[is_linux(target_platform), is_osx(target_platform), is_unix(target_platform), "
                     "is_windows(target_platform)]";
  struct Expected {
    const char* platform;
    const char* booleans;
    const char* toolchain;
    const char* tests;
    const char* cdt;
  };
  const Expected expected[] = {
      {"linux-64", "[true, false, false, true, true, false, false, false, false, true, false, false, false, false, false, false, false]",
       "gcc_linux-64 =13 gxx_linux-64 gfortran_linux-64", "[true, false, true, false]", "x-cos6-x86_64"},
      {"osx-arm64", "[false, true, false, true, false, false, true, false, false, false, false, false, false, false, false, false, false]",
       "gcc_osx-arm64 =13 clangxx_osx-arm64 gfortran_osx-arm64", "[false, true, true, false]", "x-cos6-arm64"},
      {"win-64", "[false, false, true, false, true, false, false, false, false, false, false, true, false, false, false, false, false]",
       "gcc_win-64 =13 vs2022_win-64 flang_win-64", "[false, false, false, true]", "x-cos6-x86_64"},
      {"linux-aarch64", "[true, false, false, true, false, true, false, false, false, false, false, false, false, false, false, false, false]",
       "gcc_linux-aarch64 =13 gxx_linux-aarch64 gfortran_linux-aarch64", "[true, false, true, false]", "x-cos7-aarch64"},
      {"noarch", "[false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false]",
       "gcc_noarch =13 gxx_noarch gfortran_noarch", "[false, false, false, false]", "x-cos6-x86_64"},
  };
  for (const auto& row : expected) {
    SCOPED_TRACE(row.platform);
    const auto context = sample_context(row.platform);
    EXPECT_EQ(printed(booleans, context), row.booleans);
    EXPECT_EQ(printed(toolchain, context), row.toolchain);
    EXPECT_EQ(printed(tests, context), row.tests);
    EXPECT_EQ(printed("cdt('x')", context), row.cdt);
  }
}

TEST(RecipeExpression, CdtNeedsAnArchitecture) {
  auto context = sample_context("noarch");
  context.build_platform = "noarch";
  EXPECT_THROW(printed("cdt('x')", context), ExpressionError);
  context.build_platform = "linux-aarch64";
  EXPECT_EQ(printed("cdt('x')", context), "x-cos7-aarch64");
}

TEST(RecipeExpression, WholeScalarKeepsItsTypeAndMixedTextPrints) {
  const auto context = sample_context();
  EXPECT_EQ(render_template("${{ 1 + 1 }}", context), Value::integer(2));
  EXPECT_EQ(render_template(" ${{ lst }} ", context).kind(), Value::Kind::list);
  EXPECT_EQ(render_template("${{ name }}-${{ version }}.tar.gz", context), Value::string("foo-1.2.3.tar.gz"));
  EXPECT_EQ(render_template("plain", context), Value::string("plain"));
}

TEST(RecipeExpression, ErrorsCarryColumnAndOffendingText) {
  const auto context = sample_context();
  try {
    evaluate_expression("name ~ missing_var", context);
    FAIL() << "accepted";
  } catch (const ExpressionError& error) {
    EXPECT_EQ(error.kind(), ExpressionError::Kind::undefined);
    EXPECT_EQ(error.column(), 8u);
    EXPECT_EQ(error.offending(), "missing_var");
    EXPECT_NE(std::string(error.what()).find("missing_var"), std::string::npos);
  }
  try {
    evaluate_expression("name | upper(", context);
    FAIL() << "accepted";
  } catch (const ExpressionError& error) {
    EXPECT_EQ(error.kind(), ExpressionError::Kind::syntax);
    EXPECT_EQ(error.column(), 14u) << error.what();
  }
  try {
    evaluate_expression("1 + 'a'", context);
    FAIL() << "accepted";
  } catch (const ExpressionError& error) {
    EXPECT_EQ(error.column(), 1u);
    EXPECT_EQ(error.offending(), "1 + 'a'");
  }
  for (const char* text : {"", "1 +", "(1", "[1, 2", "'abc", "a b", "1 ! 2", "x.", "f(a=)", "lst[", "$x"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW(evaluate_expression(text, context), ExpressionError);
  }
  EXPECT_THROW(render_template("${{ name ", context), ExpressionError);
}

TEST(RecipeExpression, RecordsTheVariantKeysAnExpressionUses) {
  auto context = sample_context();
  std::set<std::string> used;
  context.used_names = &used;
  render_template("${{ compiler('c') }} ${{ cuda_compiler_version }} ${{ name }}", context);
  EXPECT_TRUE(used.contains("c_compiler"));
  EXPECT_TRUE(used.contains("c_compiler_version"));
  EXPECT_TRUE(used.contains("cuda_compiler_version"));
  EXPECT_TRUE(used.contains("name"));
}

TEST(RecipeExpression, HostileInputIsBoundedNotFatal) {
  const auto context = sample_context();
  const std::string deep(10'000, '(');
  EXPECT_THROW(evaluate_expression(deep + "1" + std::string(10'000, ')'), context), ExpressionError);
  std::string chain = "1";
  for (int i = 0; i < 20'000; ++i) chain += "+1";
  EXPECT_THROW(evaluate_expression(chain, context), ExpressionError);
  std::string filters = "name";
  for (int i = 0; i < 20'000; ++i) filters += "|upper";
  EXPECT_THROW(evaluate_expression(filters, context), ExpressionError);
  EXPECT_THROW(evaluate_expression("'x' * 100000000000", context), ExpressionError);
  EXPECT_THROW(evaluate_expression("('x' * 1000000) ~ ('x' * 1000000)", context), ExpressionError);
  EXPECT_THROW(evaluate_expression("9223372036854775807 + 1", context), ExpressionError);
  EXPECT_THROW(evaluate_expression("2 ** 64", context), ExpressionError);
  EXPECT_THROW(evaluate_expression("99999999999999999999", context), ExpressionError);
  EXPECT_THROW(evaluate_expression(std::string(100'000, ' ') + "1", context), ExpressionError);
  EXPECT_EQ(evaluate_expression("1 ** 9223372036854775807", context), Value::integer(1));
  EXPECT_EQ(evaluate_expression("1e400|int", context), Value::integer(INT64_MAX));
  // Found by fuzz_expression: an empty string repeated 9e18 times looped
  // 9e18 times, and a long count overflowed the length check.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(evaluate_expression("'' * 9223372036854775807", context), Value::string(""));
  EXPECT_EQ(evaluate_expression("('x' * 0) * 9223372036854775807", context), Value::string(""));
  EXPECT_THROW(evaluate_expression("'abcd' * 4611686018427387904", context), ExpressionError);  // 4 * 2^62 = 2^64
  EXPECT_THROW(evaluate_expression("4611686018427387904 * 'abcd'", context), ExpressionError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace gpuenv::recipe
