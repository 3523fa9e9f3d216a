// The one error of `${{ }}` expression evaluation. Thrown inside the recipe
// module only (docs/decisions/0001-errors.md, rule 3); the recipe reader
// turns it into a RecipeError that adds the file, line and column.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuenv::recipe {

class ExpressionError : public std::runtime_error {
 public:
  enum class Kind {
    syntax,            // the text is not an expression of the grammar in expression.hpp
    undefined,         // a variable, attribute or item that does not exist was used
    invalid_operation, // an operator, filter or function got values it cannot take
    unknown_name,      // no such filter, test, function or method
    limit,             // nesting, text size or output size beyond the bounds
  };

  // `expression` is the whole expression text; `column` is 1-based into it
  // (0: the whole expression); `offending` the part the problem is about.
  ExpressionError(Kind kind, std::string_view expression, std::size_t column, std::string_view offending,
                  std::string_view reason)
      : std::runtime_error(format_message(expression, column, offending, reason)),
        kind_(kind),
        expression_(expression),
        column_(column),
        offending_(offending),
        reason_(reason) {}

  Kind kind() const noexcept { return kind_; }
  const std::string& expression() const noexcept { return expression_; }
  std::size_t column() const noexcept { return column_; }
  const std::string& offending() const noexcept { return offending_; }
  const std::string& reason() const noexcept { return reason_; }
  // Where the expression starts in the template text render_template() was
  // given (byte offset of its first character); 0 for evaluate_expression().
  std::size_t template_offset() const noexcept { return template_offset_; }
  void set_template_offset(std::size_t offset) noexcept { template_offset_ = offset; }

  // "undefined value 'foo' at column 5 of '${{ foo ~ 1 }}'"
  static std::string format_message(std::string_view expression, std::size_t column, std::string_view offending,
                                     std::string_view reason) {
    std::string message(reason);
    if (!offending.empty()) message.append(" '").append(offending).append("'");
    if (column > 0) message.append(" at column ").append(std::to_string(column));
    message.append(" of '${{ ").append(expression).append(" }}'");
    return message;
  }

 private:
  Kind kind_;
  std::string expression_;
  std::size_t column_;
  std::string offending_;
  std::string reason_;
  std::size_t template_offset_ = 0;
};

}  // namespace gpuenv::recipe
