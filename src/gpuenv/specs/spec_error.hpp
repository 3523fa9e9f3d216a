// The one error type of the specs module.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuenv::specs {

// Thrown for every piece of user text the specs module cannot accept (versions,
// version specs, build number specs, match specs). The message names what was
// being parsed, the offending text and where in it the problem is, e.g.
//   invalid version spec '>=1.2,,3': empty clause at column 7
// so a user can fix the text without reading gpuenv's source.
class SpecError : public std::invalid_argument {
 public:
  // `what` names the kind of text ("version", "version spec", "match spec", ...).
  // `column` is 1-based into `input`; 0 means the problem concerns the whole text
  // and the message then has no "at column" part.
  SpecError(std::string_view what, std::string_view input, std::string_view reason,
            std::size_t column = 0)
      : std::invalid_argument(format_message(what, input, reason, column)),
        what_(what),
        input_(input),
        reason_(reason),
        column_(column) {}

  // "version", "version spec", "build number spec", "match spec", ...
  const std::string& kind() const noexcept { return what_; }
  // The complete text that was being parsed, verbatim.
  const std::string& input() const noexcept { return input_; }
  // The problem alone, without the text or the position ("empty clause").
  const std::string& reason() const noexcept { return reason_; }
  // 1-based column of the problem in input(); 0 when it concerns the whole text.
  std::size_t column() const noexcept { return column_; }

  static std::string format_message(std::string_view what, std::string_view input,
                                    std::string_view reason, std::size_t column) {
    std::string message = "invalid ";
    message.append(what).append(" '").append(input).append("': ").append(reason);
    if (column > 0) message.append(" at column ").append(std::to_string(column));
    return message;
  }

 private:
  std::string what_;
  std::string input_;
  std::string reason_;
  std::size_t column_;
};

}  // namespace gpuenv::specs
