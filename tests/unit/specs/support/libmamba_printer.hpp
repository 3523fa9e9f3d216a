// libmamba's printed forms of a spec (mamba 2.x: MatchSpec::to_string,
// conda_build_form and the field printers), as libmamba would read the spec's
// text. Only the conformance tests need them: gpuenv prints conda's dialect.
#pragma once

#include <cstddef>
#include <string>

#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::specs::dialects {

// libmamba differs from conda on `name=1.0=bld`, on bracket precedence, and
// it groups `,` and `|` its own way.
std::string libmamba_str(const MatchSpec& spec);
std::string libmamba_conda_build_form(const MatchSpec& spec);
std::string libmamba_version_str(const MatchSpec& spec);
std::string libmamba_build_number_str(const MatchSpec& spec);
std::string libmamba_channel_str(const MatchSpec& spec);
// Nodes of libmamba's version expression tree (`>=1,<2` is 3; free is 1).
std::size_t libmamba_version_expression_size(const MatchSpec& spec);

}  // namespace gpuenv::specs::dialects
