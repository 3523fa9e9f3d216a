// Any input either parses or throws SpecError; a parsed spec's printed form
// parses to the same constraint.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using gpuenv::specs::VersionSpec;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto spec = VersionSpec::parse(text);
    const auto printed = spec.str();
    const auto reparsed = VersionSpec::parse(printed);
    if (reparsed.str() != printed) std::abort();
  } catch (const gpuenv::specs::SpecError&) {
  }
  return 0;
}
