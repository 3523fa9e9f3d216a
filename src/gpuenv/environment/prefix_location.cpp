#include "gpuenv/environment/prefix_location.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "gpuenv/environment/environment_name.hpp"
#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::environment {

std::expected<std::filesystem::path, Error> resolve_prefix(const PrefixChoice& choice, const util::EnvLookup& env,
                                                           WhenNoPrefixGiven when_none) {
  const auto refuse = [](std::string message) { return std::unexpected(make_error(ErrorKind::usage, std::move(message))); };
  if (!choice.path.empty()) return std::filesystem::absolute(choice.path).lexically_normal();
  if (choice.name.empty()) {
    if (when_none == WhenNoPrefixGiven::use_active_prefix) {
      if (auto active = env("CONDA_PREFIX"); active && !active->empty()) return std::filesystem::path(*active);
      return refuse("no environment is active (CONDA_PREFIX is not set): say which one with -p PREFIX or -n NAME");
    }
    return refuse("say where the environment goes: -p PREFIX or -n NAME");
  }
  const auto& name = choice.name;
  if (auto valid = check_environment_name(name); !valid) return std::unexpected(valid.error());
  const auto directories = util::resolve_user_directories(env);
  if (is_reserved_environment_name(name)) {
    if (directories.root_prefix.empty()) {
      return refuse(fmt::format(
          "'{}' names the root prefix, and none is known (HOME is not set): set GPUENV_ROOT_PREFIX or use -p", name));
    }
    return directories.root_prefix;
  }
  if (directories.envs_dirs.empty()) {
    return refuse("no environments directory is known (HOME is not set): use -p PREFIX or set GPUENV_ROOT_PREFIX");
  }
  // An existing environment of that name in any envs dir wins, as in conda.
  for (const auto& envs_dir : directories.envs_dirs) {
    std::error_code ignored;
    if (std::filesystem::is_directory(envs_dir / name / "conda-meta", ignored)) return envs_dir / name;
  }
  return directories.envs_dirs.front() / name;
}

std::expected<std::filesystem::path, Error> resolve_new_environment_prefix(PrefixChoice choice,
                                                                           const std::string& file_name,
                                                                           const util::EnvLookup& env) {
  if (choice.path.empty() && choice.name.empty()) choice.name = file_name;
  if (is_reserved_environment_name(choice.name)) {
    return std::unexpected(make_error(
        ErrorKind::usage,
        fmt::format("'{}' is a reserved environment name (it names the root prefix, as in conda): choose another name",
                    choice.name)));
  }
  auto prefix = resolve_prefix(choice, env, WhenNoPrefixGiven::refuse);
  if (!prefix) return prefix;
  if (auto usable = check_prefix_for_path(*prefix); !usable) return std::unexpected(usable.error());
  return prefix;
}

std::vector<KnownEnvironment> known_environments(const util::EnvLookup& env) {
  const auto directories = util::resolve_user_directories(env);
  const auto is_environment = [](const std::filesystem::path& prefix) {
    std::error_code ignored;
    return std::filesystem::is_directory(prefix / "conda-meta", ignored);
  };
  std::vector<KnownEnvironment> found;
  if (!directories.root_prefix.empty() && is_environment(directories.root_prefix)) {
    found.push_back({"base", directories.root_prefix});
  }
  std::set<std::string> names;
  for (const auto& envs_dir : directories.envs_dirs) {
    std::vector<KnownEnvironment> here;
    std::error_code error;
    for (std::filesystem::directory_iterator it(envs_dir, error), end; !error && it != end; it.increment(error)) {
      const auto name = it->path().filename().string();
      if (!names.contains(name) && check_environment_name(name) && is_environment(it->path())) {
        here.push_back({name, it->path()});
      }
    }
    std::sort(here.begin(), here.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (auto& known : here) {
      names.insert(known.name);
      found.push_back(std::move(known));
    }
  }
  return found;
}

std::string environments_json(const std::vector<KnownEnvironment>& environments) {
  auto paths = nlohmann::json::array();
  for (const auto& known : environments) paths.push_back(known.prefix.string());
  return nlohmann::json{{"envs", paths}}.dump(2);
}

}  // namespace gpuenv::environment
