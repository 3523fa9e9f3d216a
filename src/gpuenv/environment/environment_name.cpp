#include "gpuenv/environment/environment_name.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>

#include "gpuenv/specs/package_filename.hpp"

namespace gpuenv::environment {

namespace {

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

}  // namespace

bool is_reserved_environment_name(std::string_view name) { return name == "base" || name == "root"; }

std::expected<void, Error> check_environment_name(std::string_view name) {
  // The name as the message shows it: a newline or an escape sequence in it
  // must not reach the terminal.
  const auto refuse = [&](std::string_view why) {
    return std::unexpected(make_error(
        ErrorKind::usage, fmt::format("'{}' is not a valid environment name: {}", specs::printable(name), why)));
  };
  if (is_blank(name)) return refuse("it is empty; give a name, or -p PATH");
  if (name == "." || name == ".." || name.find_first_of("/\\") != std::string_view::npos) {
    return refuse("a name cannot hold '/' or '\\' or be '.' or '..'; give a path with -p instead");
  }
  // conda's PREFIX_NAME_DISALLOWED_CHARS. ':' would split PATH when the
  // environment is activated; '#' and ' ' break conda's own tools.
  if (const auto bad = name.find_first_of(" :#"); bad != std::string_view::npos) {
    return refuse(fmt::format("names cannot contain ' ', ':' or '#' (as in conda); found '{}' at position {}",
                              name[bad], bad + 1));
  }
  // Beyond conda: control characters (a newline, a tab, NUL, DEL) in a
  // directory name break history lines, activation scripts and terminals.
  if (const auto bad = std::find_if(name.begin(), name.end(),
                                    [](char c) { return std::iscntrl(static_cast<unsigned char>(c)); });
      bad != name.end()) {
    return refuse(fmt::format("names cannot contain control characters (found byte 0x{:02x} at position {})",
                              static_cast<unsigned char>(*bad), bad - name.begin() + 1));
  }
  return {};
}

std::expected<void, Error> check_prefix_for_path(const std::filesystem::path& prefix) {
  if (prefix.string().find(':') == std::string::npos) return {};
  return std::unexpected(make_error(ErrorKind::usage, fmt::format(
      "{}: an environment path cannot contain ':' (PATH would split it in two when it is activated); use a path "
      "without ':'",
      specs::printable(prefix.string()))));
}

}  // namespace gpuenv::environment
