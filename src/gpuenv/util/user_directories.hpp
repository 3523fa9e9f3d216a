// Where gpuenv keeps things on disk, decided once from the environment.
//
// Decisions (docs/json-output.md lists them for `gpuenv info`):
// - cache:        $GPUENV_CACHE_DIR, else $XDG_CACHE_HOME/gpuenv, else ~/.cache/gpuenv
// - root prefix:  $GPUENV_ROOT_PREFIX, else ~/.gpuenv (named environments live
//                 in <root>/envs, as in micromamba's ~/micromamba)
// - package dirs: $CONDA_PKGS_DIRS (comma-separated, as conda reads it), else <root>/pkgs
// - envs dirs:    $CONDA_ENVS_PATH or $CONDA_ENVS_DIRS (as conda), else <root>/envs
// - config files: gpuenv reads conda's .condarc search path (conda's documented
//   order) plus its own $XDG_CONFIG_HOME/gpuenv/config.yaml.
// XDG variables are used only when they hold an absolute path, as the XDG
// Base Directory specification says.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "gpuenv/util/environment.hpp"

namespace gpuenv::util {

struct UserDirectories {
  // Empty when neither HOME nor an explicit variable gives a place.
  std::filesystem::path cache_dir;
  std::filesystem::path root_prefix;
  std::vector<std::filesystem::path> pkgs_dirs;
  std::vector<std::filesystem::path> envs_dirs;
  // Every file or directory (a trailing '/') a configuration may be read
  // from, lowest precedence first.
  std::vector<std::filesystem::path> config_search_path;
};

UserDirectories resolve_user_directories(const EnvLookup& env);

// The entries of `config_search_path` that exist (for a directory entry, the
// *.yml/*.yaml files in it), in precedence order.
std::vector<std::filesystem::path> existing_config_files(
    const std::vector<std::filesystem::path>& config_search_path);

}  // namespace gpuenv::util
