#include "gpuenv/specs/build_number_spec.hpp"

#include <array>
#include <utility>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/spec_parsing.hpp"

namespace gpuenv::specs {

namespace {

constexpr std::string_view kind_name = "build number spec";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Longer operators first: "<=" must not be read as "<" followed by "=3".
constexpr std::array<std::pair<std::string_view, BuildNumberSpec::Operator>, 7> operators{{
    {"==", BuildNumberSpec::Operator::equal},
    {"!=", BuildNumberSpec::Operator::not_equal},
    {"<=", BuildNumberSpec::Operator::less_equal},
    {">=", BuildNumberSpec::Operator::greater_equal},
    {"=", BuildNumberSpec::Operator::equal},
    {"<", BuildNumberSpec::Operator::less},
    {">", BuildNumberSpec::Operator::greater},
}};

}  // namespace

BuildNumberSpec BuildNumberSpec::parse(std::string_view text) {
  return detail::parse_build_number_spec(text).value_or_throw();
}

detail::Parsed<BuildNumberSpec> detail::parse_build_number_spec(std::string_view text) {
  using Operator = BuildNumberSpec::Operator;
  std::size_t pos = 0;
  auto skip_spaces = [&] {
    while (pos < text.size() && is_space(text[pos])) ++pos;
  };
  std::size_t end = text.size();
  while (end > 0 && is_space(text[end - 1])) --end;
  skip_spaces();
  const std::string_view body = text.substr(pos, end - pos);
  if (body.empty() || body == "*") return BuildNumberSpec::any();

  Operator op = Operator::equal;
  for (const auto& [spelling, candidate] : operators) {
    if (body.starts_with(spelling)) {
      op = candidate;
      pos += spelling.size();
      break;
    }
  }
  skip_spaces();
  if (pos >= end) {
    return SpecError(kind_name, text, "expected a build number", pos + 1);
  }
  std::uint64_t number = 0;
  for (std::size_t i = pos; i < end; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') {
      return SpecError(kind_name, text,
                       std::string("unexpected character '") + c + "' (build numbers are integers)",
                       i + 1);
    }
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (number > (UINT64_MAX - digit) / 10) {
      return SpecError(kind_name, text, "build number too large", pos + 1);
    }
    number = number * 10 + digit;
  }
  return BuildNumberSpec(op, number);
}

bool BuildNumberSpec::contains(std::uint64_t build_number) const noexcept {
  switch (op_) {
    case Operator::any: return true;
    case Operator::equal: return build_number == number_;
    case Operator::not_equal: return build_number != number_;
    case Operator::less: return build_number < number_;
    case Operator::less_equal: return build_number <= number_;
    case Operator::greater: return build_number > number_;
    case Operator::greater_equal: return build_number >= number_;
  }
  return false;
}

std::string BuildNumberSpec::str() const {
  const std::string number = std::to_string(number_);
  switch (op_) {
    case Operator::any: return "*";
    case Operator::equal: return number;
    case Operator::not_equal: return "!=" + number;
    case Operator::less: return "<" + number;
    case Operator::less_equal: return "<=" + number;
    case Operator::greater: return ">" + number;
    case Operator::greater_equal: return ">=" + number;
  }
  return number;
}

}  // namespace gpuenv::specs
