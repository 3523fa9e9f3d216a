// libFuzzer target for `${{ }}` expressions: any text is evaluated (and
// rendered as a template) against a recipe-like context; it either gives a
// value or throws ExpressionError, within the bounds of ExpressionLimits.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuenv/recipe/expression.hpp"

namespace {

gpuenv::recipe::EvaluationContext make_context() {
  using gpuenv::recipe::Value;
  gpuenv::recipe::EvaluationContext context;
  context.variables["version"] = Value::string("1.2.3");
  context.variables["name"] = Value::string("foo");
  context.variables["lst"] = Value::list({Value::integer(1), Value::string("a"), Value::floating(1.5)});
  context.variables["num"] = Value::integer(5);
  context.variables["map"] = Value::map({{"k", Value::string("v")}});
  context.variant = {{"cuda_compiler_version", "12.9"}, {"c_compiler", "gcc"}, {"c_stdlib", "sysroot"}};
  context.environment = {{"HOME", "/root"}};
  // Smaller output bounds keep each run fast; the logic is the same.
  context.limits.max_output_bytes = 1 << 16;
  context.limits.max_output_items = 1 << 12;
  return context;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto context = make_context();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)gpuenv::recipe::evaluate_expression(text, context).display();
  } catch (const gpuenv::recipe::ExpressionError&) {
  }
  try {
    (void)gpuenv::recipe::render_template(text, context);
  } catch (const gpuenv::recipe::ExpressionError&) {
  }
  return 0;
}
