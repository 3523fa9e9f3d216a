// The -p PREFIX / -n NAME options every command that works on one
// environment shares, and how they turn into a path.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

#include "gpuenv/environment/prefix_location.hpp"

namespace gpuenv::cli {

struct PrefixArguments {
  std::string prefix;
  std::string name;
};

// Adds -p/--prefix and -n/--name (mutually exclusive).
void add_prefix_options(CLI::App* command, PrefixArguments& arguments);

// The -p/-n choice, for environment::resolve_prefix.
inline environment::PrefixChoice prefix_choice(const PrefixArguments& arguments) {
  return {arguments.prefix, arguments.name};
}

}  // namespace gpuenv::cli
