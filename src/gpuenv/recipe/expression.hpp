// `${{ }}` expressions of v1 recipes (CEP 13/14): the Jinja expression subset
// rattler-build evaluates (with minijinja), no statements. Behaviour was
// checked against rattler-build's render (tests/unit/recipe/expression_test.cpp
// lists the cases; rattler_differential_test.cpp compares live).
//
// Grammar (lowest precedence first; `*` repeats, `?` optional):
//   expression  := or_expr ( "if" or_expr ( "else" expression )? )?
//   or_expr     := and_expr ( "or" and_expr )*        a or b: a when truthy, else b
//   and_expr    := not_expr ( "and" not_expr )*       a and b: b when both truthy, else false
//   not_expr    := "not" not_expr | comparison
//   comparison  := sum ( ( "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "not" "in" ) sum )*
//                  (chained like Python: 1 < x < 3)
//   sum         := concat ( ( "+" | "-" ) concat )*
//   concat      := product ( "~" product )*           string concatenation of printed forms
//   product     := power ( ( "*" | "/" | "//" | "%" ) power )*
//   power       := unary ( "**" unary )*
//   unary       := ( "-" | "+" ) unary | filtered
//   filtered    := postfix ( "|" NAME call_args? | "is" "not"? NAME call_args? )*
//                  (filters and tests apply to the unary result: -x|abs is (-x)|abs)
//   postfix     := primary ( "." NAME | "[" subscript "]" | call_args )*
//   subscript   := expression | expression? ":" expression? ( ":" expression? )?
//   call_args   := "(" ( argument ( "," argument )* ","? )? ")"
//   argument    := NAME "=" expression | expression
//   primary     := STRING+ (adjacent strings join) | INTEGER | FLOAT | "true" | "True"
//                | "false" | "False" | "none" | "None" | NAME
//                | "[" ( expression ( "," expression )* ","? )? "]"
//                | "(" expression ")" | "(" ( expression "," )+ expression? ")"   (a list)
//                | "{" ( expression ":" expression ( "," ... )* ","? )? "}"
//   STRING      := '...' or "..." with \\ \' \" \n \t \r escapes
//
// Names: the caller's variables (context, variant), target_platform,
// build_platform, host_platform, the platform booleans (linux, osx, win, unix,
// x86_64, aarch64, arm64, ppc64le, s390x, x86, linux64, linux32, win64, win32,
// osx64, emscripten, wasm32) and `env`.
// Filters: version_to_buildstring lower upper replace(old,new) split(sep?)
// join(sep?) default(value, boolean?) first last length count trim int abs min
// max sort reverse unique list. Tests: defined undefined none string number
// integer float boolean true false sequence mapping even odd.
// Functions: compiler(lang) stdlib(lang) cdt(name) pin_subpackage(name, ...)
// pin_compatible(name, ...) match(value, spec) is_linux(p) is_osx(p)
// is_unix(p) is_windows(p); methods env.get(name, default=...) env.exists(name).
//
// Undefined values behave like minijinja's strict mode, as rattler-build sets
// it: a missing name, attribute or index is an error once used (printed,
// compared, tested for truth, operated on); `is defined` and `default` may
// look at it.
//
// Bounds (hostile recipes): text of at most max_expression_bytes, nesting of
// at most max_depth, strings and lists of at most max_output_bytes /
// max_output_items; integers that overflow 64 bits are an error (rattler-build
// widens to 128 bits; docs/spec-deviations.md).
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "gpuenv/recipe/expression_error.hpp"
#include "gpuenv/recipe/value.hpp"

namespace gpuenv::recipe {

struct ExpressionLimits {
  std::size_t max_expression_bytes = 64u << 10;
  std::size_t max_depth = 64;
  std::size_t max_output_bytes = 1u << 20;
  std::size_t max_output_items = 100'000;
};

// What names mean while evaluating. A value, passed in: nothing is read from
// the process (the environment variables too come from `environment`).
struct EvaluationContext {
  std::map<std::string, Value, std::less<>> variables;    // context, then anything else the caller adds
  std::map<std::string, std::string, std::less<>> variant;  // the variant being rendered (also names)
  std::string target_platform = "linux-64";
  std::string build_platform = "linux-64";
  std::string host_platform = "linux-64";
  std::map<std::string, std::string, std::less<>> environment;  // what env.get() sees
  ExpressionLimits limits;
  // When set, every variable and variant key looked up (compiler('c') looks
  // up c_compiler and c_compiler_version) is added: the variant keys a
  // recipe uses.
  std::set<std::string>* used_names = nullptr;
  // conda_build_config.yaml selectors (rattler-build reads them with
  // str.startswith/endswith, which recipes do not have).
  bool string_prefix_methods = false;
};

// Evaluates the text between `${{` and `}}`. Throws ExpressionError.
Value evaluate_expression(std::string_view expression, const EvaluationContext& context);

// Renders a YAML string that may hold `${{ ... }}` parts. A string that is
// exactly one `${{ ... }}` (spaces around allowed) keeps the value's type
// (`${{ 1 + 1 }}` is the integer 2); anything else is the printed text.
// An unterminated `${{` is a syntax error. Throws ExpressionError.
Value render_template(std::string_view text, const EvaluationContext& context);

// True when `text` holds a `${{`.
bool has_expression(std::string_view text) noexcept;

}  // namespace gpuenv::recipe
