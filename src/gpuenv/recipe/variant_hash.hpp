// The build-string hash rattler-build gives a variant: the variant's keys
// ('-' as '_') and values (target_platform included) printed as Python's
// json.dumps(sort_keys=True) prints them (", " and ": " separators, strings
// escaped as JSON, non-ASCII kept), SHA-1 of that, the first 7 hex digits.
// The default build string is <prefix>h<hash>_<build number>, the prefix made
// of the variant's python/numpy/perl/lua/r versions ("py310", "np2py310"),
// or "py" for noarch: python.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::recipe {

std::string variant_hash_input(const Variant& variant);

// First 7 hex digits of SHA-1(hash_input).
std::string variant_hash(const std::string& hash_input);

// "np2py310", "r43", "" (noarch python: "py").
std::string variant_hash_prefix(const Variant& variant, const std::optional<std::string>& noarch);

std::string default_build_string(const std::string& prefix, const std::string& hash, std::int64_t build_number);

}  // namespace gpuenv::recipe
