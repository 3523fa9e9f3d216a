// Where an environment is: a path (-p) or a name (-n) in the envs
// directories, else the active environment, as conda decides it.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/environment/error.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::environment {

struct PrefixChoice {
  std::string path;  // -p; made absolute
  std::string name;  // -n
};

enum class WhenNoPrefixGiven {
  refuse,             // `create`: the user must say where
  use_active_prefix,  // install/list/run...: $CONDA_PREFIX, as conda does
};

// The environment's absolute path: `path` as given (made absolute), `name`
// as <first envs dir>/NAME unless another envs dir already holds it (`base`
// and `root` name the root prefix, as in conda; NAME checked with
// check_environment_name), else the active environment when `when_none`
// allows it. The error says what to pass instead.
std::expected<std::filesystem::path, Error> resolve_prefix(const PrefixChoice& choice, const util::EnvLookup& env,
                                                           WhenNoPrefixGiven when_none);

// Where `create` makes the environment: -p or -n, else `file_name` (an
// environment.yml's name, as `conda env create` takes it). Refuses the
// reserved names (base, root: they name the root prefix, as in conda) and a
// prefix that could not go on PATH.
std::expected<std::filesystem::path, Error> resolve_new_environment_prefix(PrefixChoice choice,
                                                                           const std::string& file_name,
                                                                           const util::EnvLookup& env);

// An environment `env list` shows: its name (`base` for the root prefix,
// the directory's name in an envs directory) and its path.
struct KnownEnvironment {
  std::string name;
  std::filesystem::path prefix;
};

// The environments gpuenv knows of, as `conda env list` shows them: the root
// prefix when it is an environment, then every directory with a conda-meta/
// in each envs directory (first directory first, names sorted; a name an
// earlier envs directory holds hides the later ones, as -n finds it).
// gpuenv keeps no environments.txt, so prefixes made with -p elsewhere are
// not listed.
std::vector<KnownEnvironment> known_environments(const util::EnvLookup& env);

// `env list --json`, conda's shape: {"envs": [path, ...]}.
std::string environments_json(const std::vector<KnownEnvironment>& environments);

}  // namespace gpuenv::environment
