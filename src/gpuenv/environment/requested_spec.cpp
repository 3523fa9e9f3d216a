#include "gpuenv/environment/requested_spec.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "gpuenv/specs/package_filename.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::environment {

std::expected<specs::MatchSpec, std::string> parse_requested_spec(std::string_view text,
                                                                  const specs::ChannelContext& context) {
  const auto shown = specs::printable(text);
  if (std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
    return std::unexpected(
        fmt::format("'{}' is an empty package spec: name a package, like 'numpy' or 'numpy >=1.26'", shown));
  }
  std::optional<specs::MatchSpec> spec;
  try {
    spec = specs::MatchSpec::parse(text, context);
  } catch (const specs::SpecError& error) {
    return std::unexpected(fmt::format("'{}' is not a package spec: {}", shown, error.what()));
  }
  // conda parses a bare `*` name (it matches every package name), but no one
  // means to install, update or remove every package there is.
  if (spec->name().is_any()) {
    return std::unexpected(fmt::format("'{}' matches every package name: name the packages you mean", shown));
  }
  return std::move(*spec);
}

}  // namespace gpuenv::environment
