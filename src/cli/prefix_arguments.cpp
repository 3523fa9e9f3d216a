#include "prefix_arguments.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>

#include "gpuenv/environment/environment_name.hpp"
#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::cli {
namespace {

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
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
  if (auto valid = environment::check_environment_name(name); !valid) return std::unexpected(valid.error());
  const auto directories = util::resolve_user_directories(env);
  if (environment::is_reserved_environment_name(name)) {
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
