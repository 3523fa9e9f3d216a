#include "rattler_printer.hpp"

#include "gpuenv/specs/spec_parsing.hpp"

namespace gpuenv::specs::dialects {

std::string rattler_version_str(const MatchSpec& spec) {
  if (!spec.has_version()) return "*";
  // rattler reads the text itself (lenient mode), so globs like `2.7.*.*`
  // print the way rattler prints them; text only conda reads prints as parsed.
  const auto lenient = detail::parse_version_spec(spec.version_text(), ParseMode::lenient);
  return lenient ? lenient.value().str_rattler() : spec.version().str_rattler();
}

std::string rattler_build_number_str(const MatchSpec& spec) {
  const BuildNumberSpec& number = spec.build_number();
  if (number.op() == BuildNumberSpec::Operator::equal) return "==" + std::to_string(number.number());
  return number.str();
}

}  // namespace gpuenv::specs::dialects
