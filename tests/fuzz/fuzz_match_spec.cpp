// Any input either parses or throws SpecError; a parsed MatchSpec's canonical
// form is stable (printing the reparsed spec gives the same text).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/spec_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using gpuenv::specs::MatchSpec;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto spec = MatchSpec::parse(text);
    const auto printed = spec.str();
    const auto reparsed = MatchSpec::parse(printed);
    if (reparsed.str() != printed) std::abort();
  } catch (const gpuenv::specs::SpecError&) {
  }
  return 0;
}
