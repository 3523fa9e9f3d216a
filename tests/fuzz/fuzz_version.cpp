// Any input either parses or throws SpecError; a parsed version survives a
// round trip through its printed form and compares equal to itself.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using gpuenv::specs::Version;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto version = Version::parse(text);
    const auto reparsed = Version::parse(version.str());
    if (!(reparsed == version) || (reparsed <=> version) != 0 ||
        std::hash<Version>{}(reparsed) != std::hash<Version>{}(version)) {
      std::abort();
    }
  } catch (const gpuenv::specs::SpecError&) {
  }
  return 0;
}
