// rattler's printed version and build number of a spec (`==1.2`, `1.2.*`),
// for the conformance tests' rattler rows: gpuenv prints conda's dialect.
#pragma once

#include <string>

#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::specs::dialects {

std::string rattler_version_str(const MatchSpec& spec);
std::string rattler_build_number_str(const MatchSpec& spec);

}  // namespace gpuenv::specs::dialects
