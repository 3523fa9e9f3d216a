// The -p PREFIX / -n NAME options every command that works on one
// environment shares, and how they turn into a path.
#pragma once

#include <CLI/CLI.hpp>

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

#include "gpuenv/util/environment.hpp"

namespace gpuenv::cli {

struct PrefixArguments {
  std::string prefix;
  std::string name;
};

// Adds -p/--prefix and -n/--name (mutually exclusive).
void add_prefix_options(CLI::App* command, PrefixArguments& arguments);

enum class WhenNoPrefixGiven {
  refuse,             // `create`: the user must say where
  use_active_prefix,  // install/list/run...: $CONDA_PREFIX, as conda does
};

// The environment's absolute path: -p as given (made absolute), -n NAME as
// <first envs dir>/NAME (`base` and `root` name the root prefix, as in
// conda; NAME checked with environment::check_environment_name), else
// the active environment when `when_none` allows it. The error says what
// to pass instead.
std::expected<std::filesystem::path, std::string> resolve_prefix(const PrefixArguments& arguments,
                                                                  const util::EnvLookup& env,
                                                                  WhenNoPrefixGiven when_none);

}  // namespace gpuenv::cli
