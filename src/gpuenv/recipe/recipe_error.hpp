// Why a recipe was refused: the file, the line and column, the offending
// text and a message that quotes the line, like rattler-build's:
//   recipe.yaml:12:9: undefined value 'foo'
//      12 |     - ${{ foo }}
//         |           ^
// No <expected> here (see recipe_types.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuenv::util {
struct YamlError;
}

namespace gpuenv::recipe {

struct RecipeError {
  enum class Kind {
    unreadable,     // the file cannot be read
    too_large,      // the file or its YAML tree is beyond the bounds
    not_yaml,       // YAML syntax
    expression,     // a `${{ }}` expression or selector failed (syntax, undefined, ...)
    invalid_value,  // a field has a value of the wrong type or form
    unknown_field,  // a key the format does not have
    missing_field,  // a required key is absent
  };
  Kind kind = Kind::invalid_value;
  std::string file;
  std::size_t line = 0;    // 1-based; 0: the whole file
  std::size_t column = 0;  // 1-based
  std::string offending;
  std::string message;     // complete, ready to print
};

// The YAML layer's refusal of `file` (syntax, bounds, unreadable) as a
// recipe error, at the line and column where the parser stopped.
RecipeError from_yaml_error(const util::YamlError& error, std::string_view file);

// "file:line:column: reason 'offending'" and, when `text` holds the line, the
// line itself with a caret under the column.
std::string format_recipe_message(std::string_view file, std::string_view text, std::size_t line, std::size_t column,
                                  std::string_view offending, std::string_view reason);

}  // namespace gpuenv::recipe
