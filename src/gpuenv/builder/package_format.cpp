#include "gpuenv/builder/package_format.hpp"

#include <charconv>
#include <string>

namespace gpuenv::build {

std::expected<PackageFormat, BuildError> parse_package_format(std::string_view text) {
  const auto refuse = [&](std::string why) {
    return std::unexpected(BuildError{BuildErrorKind::option,
                                      "--package-format " + std::string(text) + ": " + why +
                                          "; use conda, conda:LEVEL (1-22), tar-bz2 or tar-bz2:LEVEL (1-9)"});
  };
  const auto colon = text.find(':');
  const auto name = text.substr(0, colon);
  PackageFormat format;
  int lowest = 1;
  int highest = 22;
  if (name == "conda") {
    format = {package::ArchiveFormat::conda, 19};
  } else if (name == "tar-bz2") {
    format = {package::ArchiveFormat::tar_bz2, 9};
    highest = 9;
  } else {
    return refuse("unknown format '" + std::string(name) + "'");
  }
  if (colon == std::string_view::npos) return format;
  const auto level_text = text.substr(colon + 1);
  int level = 0;
  const auto [end, error] = std::from_chars(level_text.data(), level_text.data() + level_text.size(), level);
  if (error != std::errc{} || end != level_text.data() + level_text.size()) {
    return refuse("the level '" + std::string(level_text) + "' is not a whole number");
  }
  if (level < lowest || level > highest) {
    return refuse("the level " + std::to_string(level) + " is outside " + std::to_string(lowest) + "-" +
                  std::to_string(highest));
  }
  format.compression_level = level;
  return format;
}

}  // namespace gpuenv::build
