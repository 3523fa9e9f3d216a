// `${{ }}` expressions against what rattler-build 0.x renders for the same
// text (each expected printed form was taken from its render API; see
// rattler_differential_test.cpp for the live comparison).
#include <gtest/gtest.h>

#include <string>

#include "gpuenv/recipe/expression.hpp"

namespace gpuenv::recipe {
namespace {

EvaluationContext sample_context(std::string platform = "linux-64") {
  EvaluationContext context;
  context.variables["version"] = Value::string("1.2.3");
  context.variables["name"] = Value::string("foo");
  context.variables["lst"] = Value::list({Value::integer(1), Value::integer(2), Value::integer(3)});
  context.variables["num"] = Value::integer(5);
  context.variables["flag"] = Value::boolean(true);
  context.variant = {{"cuda_compiler_version", "12.9"}, {"c_compiler", "gcc"},       {"c_compiler_version", "13"},
                     {"c_stdlib", "sysroot"},           {"c_stdlib_version", "2.17"}, {"cuda_compiler", "cuda-nvcc"}};
  context.target_platform = platform;
  context.environment = {{"HOME", "/root"}};
  return context;
}

std::string printed(std::string_view expression, const EvaluationContext& context = sample_context()) {
  return render_template("${{ " + std::string(expression) + " }}", context).display();
}

struct Case {
  const char* expression;
  const char* expected;
};

// Expression -> rattler-build's printed result (linux-64, sample_context()).
constexpr Case rattler_build_cases[] = {
    {"name|upper", "FOO"},
    {"[1,2]", "[1, 2]"},
    {"lst", "[1, 2, 3]"},
    {"{'a':1}", "{\"a\": 1}"},
    {"{'b': [1], 'a': 'x'}", "{\"a\": \"x\", \"b\": [1]}"},
    {"none", "none"},
    {"None", "none"},
    {"True", "true"},
    {"flag", "true"},
    {"num + 1", "6"},
    {"1.0", "1.0"},
    {"1.50", "1.5"},
    {"3/1", "3.0"},
    {"10/4", "2.5"},
    {"7//2", "3"},
    {"2**3", "8"},
    {"1e3", "1000.0"},
    {"1e20", "100000000000000000000.0"},
    {"1e-7", "0.0000001"},
    {"0.1+0.2", "0.30000000000000004"},
    {"-0.0", "-0.0"},
    {"1/0", "inf"},
    {"-1/0", "-inf"},
    {"1/0*0", "NaN"},
    {"7%3", "1"},
    {"-7%3", "2"},
    {"-7//2", "-4"},
    {"7.5//2", "3.0"},
    {"1 + 2 * 3", "7"},
    {"-1", "-1"},
    {"'a' * 3", "aaa"},
    {"1 + true", "2"},
    {"version | version_to_buildstring", "12"},
    {"'12.9'|version_to_buildstring", "129"},
    {"'12'|version_to_buildstring", "12"},
    {"'1.2.3.4'|version_to_buildstring", "12"},
    {"'1.2a'|version_to_buildstring", "12a"},
    {"none|version_to_buildstring", "none"},
    {"num|version_to_buildstring", "5"},
    {"compiler('cuda')", "cuda-nvcc_linux-64 =12.9"},
    {"compiler('c')", "gcc_linux-64 =13"},
    {"compiler('cxx')", "gxx_linux-64"},
    {"compiler('fortran')", "gfortran_linux-64"},
    {"compiler('rust')", "rust_linux-64"},
    {"compiler(1)", "1_linux-64"},
    {"stdlib('c')", "sysroot_linux-64 =2.17"},
    {"cdt('x')", "x-cos6-x86_64"},
    {"pin_subpackage('x', upper_bound='x.x')",
     "{\"pin_subpackage\":{\"name\":\"x\",\"lower_bound\":\"x.x.x.x.x.x\",\"upper_bound\":\"x.x\"}}"},
    {"pin_subpackage('testpkg', exact=True)", "{\"pin_subpackage\":{\"name\":\"testpkg\",\"exact\":true}}"},
    {"pin_compatible('x', lower_bound='1.0', upper_bound='2.0')",
     "{\"pin_compatible\":{\"name\":\"x\",\"lower_bound\":\"1.0\",\"upper_bound\":\"2.0\"}}"},
    {"pin_subpackage('x', lower_bound=none, upper_bound=none)", "{\"pin_subpackage\":{\"name\":\"x\"}}"},
    {"pin_subpackage('x', build='abc*')",
     "{\"pin_subpackage\":{\"name\":\"x\",\"lower_bound\":\"x.x.x.x.x.x\",\"upper_bound\":\"x\",\"build\":\"abc*\"}}"},
    {"pin_subpackage(1)", "{\"pin_subpackage\":{\"name\":\"1\",\"lower_bound\":\"x.x.x.x.x.x\",\"upper_bound\":\"x\"}}"},
    {"is_linux(target_platform)", "true"},
    {"is_unix('osx-64')", "true"},
    {"lst|join(',')", "1,2,3"},
    {"lst|join", "123"},
    {"lst|join(none)", "123"},
    {"lst | join(', ')", "1, 2, 3"},
    {"[1,'a']|join('-')", "1-a"},
    {"lst|length", "3"},
    {"'abc'|length", "3"},
    {"lst[0]", "1"},
    {"lst[-1]", "3"},
    {"lst.0", "1"},
    {"lst[1:]", "[2, 3]"},
    {"lst[:-1]", "[1, 2]"},
    {"'abc'[1]", "b"},
    {"'abc'[1:]", "bc"},
    {"'abc'[::-1]", "cba"},
    {"{'a':1}.a", "1"},
    {"{'a':1}['a']", "1"},
    {"'1.9'|int", "1"},
    {"3.7|int", "3"},
    {"true|int", "1"},
    {"'12'|int + 1", "13"},
    {"lst|min", "1"},
    {"lst|max", "3"},
    {"lst|sort", "[1, 2, 3]"},
    {"lst|reverse", "[3, 2, 1]"},
    {"lst|unique", "[1, 2, 3]"},
    {"lst|list", "[1, 2, 3]"},
    {"lst|last", "3"},
    {"lst|first", "1"},
    {"[1,2]|first", "1"},
    {"'ab'|last", "b"},
    {"''|default('d')", ""},
    {"''|default('d', true)", "d"},
    {"none|default('d')", "none"},
    {"undefinedvar | default('x')", "x"},
    {"num|default(3)", "5"},
    {"'a' ~ none", "anone"},
    {"'a' ~ 1.5", "a1.5"},
    {"'a' ~ true", "atrue"},
    {"1 ~ 'a'", "1a"},
    {"lst ~ 'x'", "[1, 2, 3]x"},
    {"'a' ~ [1,'b']", "a[1, \"b\"]"},
    {"[none, true, 'a', 1.5]", "[none, true, \"a\", 1.5]"},
    {"[lst]", "[[1, 2, 3]]"},
    {"'a' + 'b'", "ab"},
    {"'a' 'b'", "ab"},
    {"1 == 1.0", "true"},
    {"1 == true", "true"},
    {"'1' == 1", "false"},
    {"'a' < 'b'", "true"},
    {"lst < lst", "false"},
    {"'a' < 1", "false"},
    {"none < 1", "true"},
    {"none == none", "true"},
    {"1 != 2", "true"},
    {"1 < 2 < 3", "true"},
    {"1 in lst", "true"},
    {"'ab' in lst", "false"},
    {"'x' in 'xyz'", "true"},
    {"'z' not in 'abc'", "true"},
    {"not 'x' in 'abc'", "true"},
    {"not true", "false"},
    {"not lst", "false"},
    {"1 < 2 and 3", "3"},
    {"true and none", "false"},
    {"'a' and none", "false"},
    {"'x' and 0", "false"},
    {"0 and 'x'", "false"},
    {"none and 'x'", "false"},
    {"1 and 2", "2"},
    {"1 and 0.0", "false"},
    {"none or 'x'", "x"},
    {"'' or 0", "0"},
    {"0 or ''", ""},
    {"'a' or 'b'", "a"},
    {"false or none", "none"},
    {"'a' if false", ""},
    {"('a' if false) is defined", "false"},
    {"undefinedvar is defined", "false"},
    {"'' is defined", "true"},
    {"none is none", "true"},
    {"'x' is not none", "true"},
    {"num is number", "true"},
    {"num is string", "false"},
    {"name is string", "true"},
    {"lst is sequence", "true"},
    {"num is even", "false"},
    {"num is odd", "true"},
    {"num is defined and num > 3", "true"},
    {"name[0]|upper", "F"},
    {"(1)", "1"},
    {"(1,2)", "[1, 2]"},
    {"[1,2,][1]", "2"},
    {"[]", "[]"},
    {"'ABC'|lower", "abc"},
    {"' x '|trim", "x"},
    {"'x'|upper|lower", "x"},
    {"version|replace('.', '_')", "1_2_3"},
    {"target_platform | replace('-', '_')", "linux_64"},
    {"'1.2.3'|split('.')|length", "3"},
    {"'a,b'|split(',')|last", "b"},
    {"'aXbX'|split('X')", "[\"a\", \"b\", \"\"]"},
    {"'a b  c'|split", "[\"a\", \"b\", \"c\"]"},
    {"'x'|split('')", "[\"\", \"x\", \"\"]"},
    {"version|split('.')|first", "1"},
    {"version|split('.')|join('.')", "1.2.3"},
    {"num|abs", "5"},
    {"-num|abs", "5"},
    {"'\\n'|length", "1"},
    {"match(version, '>=1.2')", "true"},
    {"match('12.9', '12.*')", "true"},
    {"match('12.9', '>=12')", "true"},
    {"match(num, '>=5')", "true"},
    {"match(none, '>=5')", "true"},
    {"match('x', '>=1')", "false"},
    {"env.exists('HOME')", "true"},
    {"env.exists('NOPE_X')", "false"},
    {"env.get('NOPE_X', default='d')", "d"},
    {"env.get('NOPE', default=1)", "1"},
    {"env.get('HOME')", "/root"},
    {"cuda_compiler_version", "12.9"},
    {"target_platform", "linux-64"},
    {"build_platform", "linux-64"},
    {"host_platform", "linux-64"},
    {"unix", "true"},
    {"linux", "true"},
    {"linux64", "true"},
    {"win", "false"},
    {"linux and x86_64", "true"},
    {"aarch64", "false"},
};

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

// Expressions rattler-build refuses; each must be an ExpressionError of the kind given.
struct ErrorCase {
  const char* expression;
  ExpressionError::Kind kind;
};
constexpr ErrorCase rattler_build_errors[] = {
    {"undefinedvar", ExpressionError::Kind::undefined},
    {"undefinedvar.foo", ExpressionError::Kind::undefined},
    {"undefinedvar == 1", ExpressionError::Kind::undefined},
    {"not undefinedvar", ExpressionError::Kind::undefined},
    {"undefinedvar ~ 'a'", ExpressionError::Kind::undefined},
    {"'a' if undefinedvar else 'b'", ExpressionError::Kind::undefined},
    {"x if true else y", ExpressionError::Kind::undefined},
    {"lst[5]", ExpressionError::Kind::undefined},
    {"'abc'[9]", ExpressionError::Kind::undefined},
    {"{'a':1}['b']", ExpressionError::Kind::undefined},
    {"num.foo", ExpressionError::Kind::undefined},
    {"[]|first", ExpressionError::Kind::undefined},
    {"''|first", ExpressionError::Kind::undefined},
    {"env['HOME']", ExpressionError::Kind::undefined},
    {"env.HOME", ExpressionError::Kind::undefined},
    {"PKG_NAME", ExpressionError::Kind::undefined},
    {"linux_aarch64", ExpressionError::Kind::undefined},
    {"'%s' % 1", ExpressionError::Kind::invalid_operation},
    {"'a' + 1", ExpressionError::Kind::invalid_operation},
    {"-'a'", ExpressionError::Kind::invalid_operation},
    {"1//0", ExpressionError::Kind::invalid_operation},
    {"2**-1", ExpressionError::Kind::invalid_operation},
    {"'x'|int", ExpressionError::Kind::invalid_operation},
    {"'0x10'|int", ExpressionError::Kind::invalid_operation},
    {"' 7 '|int", ExpressionError::Kind::invalid_operation},
    {"'a'|replace('a', 'b', 1)", ExpressionError::Kind::invalid_operation},
    {"lst|join('-', 'x')", ExpressionError::Kind::invalid_operation},
    {"'a'|lower('x')", ExpressionError::Kind::invalid_operation},
    {"compiler()", ExpressionError::Kind::invalid_operation},
    {"cdt()", ExpressionError::Kind::invalid_operation},
    {"is_linux()", ExpressionError::Kind::invalid_operation},
    {"pin_subpackage('x', exact=true, upper_bound='x')", ExpressionError::Kind::invalid_operation},
    {"pin_subpackage('x', foo=1)", ExpressionError::Kind::invalid_operation},
    {"pin_subpackage('x', max_pin='x.x')", ExpressionError::Kind::invalid_operation},
    {"match('1.2', 'x y z')", ExpressionError::Kind::invalid_operation},
    {"env.get('NOPE_X')", ExpressionError::Kind::invalid_operation},
    {"env.get('NOPE', 'd')", ExpressionError::Kind::invalid_operation},
    {"env.get()", ExpressionError::Kind::invalid_operation},
    {"'a,b'.split(',')", ExpressionError::Kind::unknown_name},
    {"'abc'.upper()", ExpressionError::Kind::unknown_name},
    {"num|string", ExpressionError::Kind::unknown_name},
    {"lst|sum", ExpressionError::Kind::unknown_name},
    {"undefinedvar|d('x')", ExpressionError::Kind::unknown_name},
    {"num is divisibleby(5)", ExpressionError::Kind::unknown_name},
    {"range(3)", ExpressionError::Kind::unknown_name},
    {"dict(a=1)", ExpressionError::Kind::unknown_name},
    {"is_win('win-64')", ExpressionError::Kind::unknown_name},
    {"version_to_buildstring(version)", ExpressionError::Kind::unknown_name},
};

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
}

}  // namespace
}  // namespace gpuenv::recipe
