#include "prefix_arguments.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>

#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::cli {
namespace {

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

// The name as a message shows it: a newline or an escape sequence in it
// must not reach the terminal.
std::string printable(std::string_view name) {
  std::string shown;
  for (const char c : name) {
    if (std::iscntrl(static_cast<unsigned char>(c))) {
      shown += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      shown += c;
    }
  }
  return shown;
}

// conda's "Argument --name requires a value": an empty -n or -p is not
// "no -n or -p" (that would fall back to the active environment).
CLI::Validator not_blank(std::string what) {
  return CLI::Validator(
      [what](std::string& value) {
        return is_blank(value) ? fmt::format("needs {}, not an empty or blank value", what) : std::string();
      },
      "", "not blank");
}

}  // namespace

void add_prefix_options(CLI::App* command, PrefixArguments& arguments) {
  auto* prefix =
      command->add_option("-p,--prefix", arguments.prefix, "Path of the environment")->check(not_blank("a path"));
  command->add_option("-n,--name", arguments.name, "Name of the environment (in the envs directory)")
      ->check(not_blank("a name"))
      ->excludes(prefix);
}

bool is_reserved_environment_name(std::string_view name) { return name == "base" || name == "root"; }

std::expected<void, std::string> check_environment_name(std::string_view name) {
  const auto refuse = [&](std::string_view why) {
    return std::unexpected(fmt::format("'{}' is not a valid environment name: {}", printable(name), why));
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

std::expected<void, std::string> check_prefix_for_path(const std::filesystem::path& prefix) {
  if (prefix.string().find(':') == std::string::npos) return {};
  return std::unexpected(fmt::format(
      "{}: an environment path cannot contain ':' (PATH would split it in two when it is activated); use a path "
      "without ':'",
      prefix.string()));
}

std::expected<std::filesystem::path, std::string> resolve_prefix(const PrefixArguments& arguments,
                                                                  const util::EnvLookup& env,
                                                                  WhenNoPrefixGiven when_none) {
  if (!arguments.prefix.empty()) return std::filesystem::absolute(arguments.prefix).lexically_normal();
  if (arguments.name.empty()) {
    if (when_none == WhenNoPrefixGiven::use_active_prefix) {
      if (auto active = env("CONDA_PREFIX"); active && !active->empty()) return std::filesystem::path(*active);
      return std::unexpected(std::string(
          "no environment is active (CONDA_PREFIX is not set): say which one with -p PREFIX or -n NAME"));
    }
    return std::unexpected(std::string("say where the environment goes: -p PREFIX or -n NAME"));
  }
  const auto& name = arguments.name;
  if (auto valid = check_environment_name(name); !valid) return std::unexpected(valid.error());
  const auto directories = util::resolve_user_directories(env);
  if (is_reserved_environment_name(name)) {
    if (directories.root_prefix.empty()) {
      return std::unexpected(fmt::format(
          "'{}' names the root prefix, and none is known (HOME is not set): set GPUENV_ROOT_PREFIX or use -p", name));
    }
    return directories.root_prefix;
  }
  if (directories.envs_dirs.empty()) {
    return std::unexpected(std::string(
        "no environments directory is known (HOME is not set): use -p PREFIX or set GPUENV_ROOT_PREFIX"));
  }
  // An existing environment of that name in any envs dir wins, as in conda.
  for (const auto& envs_dir : directories.envs_dirs) {
    std::error_code ignored;
    if (std::filesystem::is_directory(envs_dir / name / "conda-meta", ignored)) return envs_dir / name;
  }
  return directories.envs_dirs.front() / name;
}

}  // namespace gpuenv::cli
