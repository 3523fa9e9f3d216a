// The parsed form of an expression (grammar in expression.hpp). Internal to
// the recipe module: expression.cpp evaluates it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/recipe/expression.hpp"

namespace gpuenv::recipe::detail {

struct SyntaxNode {
  enum class Type {
    literal, name, list, map, attribute, index, slice, call, filter, test, negative_test,
    unary, binary, comparison, logical_and, logical_or, logical_not, conditional,
  };
  Type type = Type::literal;
  std::size_t begin = 0;  // byte offsets into the expression text, for errors
  std::size_t end = 0;
  std::size_t height = 1;  // of the subtree, bounded while parsing
  std::string text;       // name, attribute, filter/test name or operator
  Value literal;
  // Operands in order. call: callee then arguments; filter/test: the operand
  // then arguments; slice: operand, then start/stop/step (null when absent);
  // comparison: the first operand then one per operator in `operators`;
  // map: key, value, key, value...
  std::vector<std::unique_ptr<SyntaxNode>> children;
  std::vector<std::string> keywords;   // call/filter/test arguments: name or "" (positional), one per argument
  std::vector<std::string> operators;  // comparison chain
};

// Throws ExpressionError (syntax, limit).
std::unique_ptr<SyntaxNode> parse_expression(std::string_view text, const ExpressionLimits& limits);

// The text inside each `${{ ... }}` of a template, in order (an unterminated
// `${{` ends the list: reading the template reports it).
std::vector<std::string_view> template_expressions(std::string_view text);

// A `compiler('x')` or `stdlib('x')` call written with a literal language:
// what variant expansion and lint look for without evaluating.
struct ToolchainCallSyntax {
  std::string function;  // compiler | stdlib
  std::string language;
};

// Such calls anywhere beneath `node`, in written order.
std::vector<ToolchainCallSyntax> toolchain_calls(const SyntaxNode& node);

}  // namespace gpuenv::recipe::detail
