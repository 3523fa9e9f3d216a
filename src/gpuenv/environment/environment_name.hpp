// What may name an environment (`-n NAME`, an environment.yml's `name:`)
// and what a prefix path may hold, as conda decides it.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

#include "gpuenv/environment/error.hpp"

namespace gpuenv::environment {

// conda's rules for an environment name (PrefixData.validate_name): not
// empty, no '/', '\', ' ', ':' or '#', not '.' or '..'; gpuenv also refuses
// control characters. The error says which character and what to do.
std::expected<void, Error> check_environment_name(std::string_view name);

// `base` and `root`: conda's names of the root prefix, which `create`
// refuses.
bool is_reserved_environment_name(std::string_view name);

// conda's validate_path: activating an environment puts <prefix>/bin on
// PATH, which a ':' in the prefix would split into two directories (one of
// them relative). create, run and shell refuse such a prefix.
std::expected<void, Error> check_prefix_for_path(const std::filesystem::path& prefix);

}  // namespace gpuenv::environment
