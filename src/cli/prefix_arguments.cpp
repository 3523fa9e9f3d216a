#include "prefix_arguments.hpp"

#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::cli {

void add_prefix_options(CLI::App* command, PrefixArguments& arguments) {
  auto* prefix = command->add_option("-p,--prefix", arguments.prefix, "Path of the environment");
  command->add_option("-n,--name", arguments.name, "Name of the environment (in the envs directory)")
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
  if (name.find('/') != std::string::npos || name == "." || name == ".." || name.find('\0') != std::string::npos) {
    return std::unexpected("'" + name + "' is not an environment name: use -p for a path");
  }
  const auto directories = util::resolve_user_directories(env);
  if (name == "base" && !directories.root_prefix.empty()) return directories.root_prefix;
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
