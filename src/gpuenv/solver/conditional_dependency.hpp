// Internal to the solver module (includes libsolv): CEP 43 conditional
// dependencies as libsolv complex dependencies. `cuda-cudart[when="__cuda>=12
// and python>=3.10"]` becomes REL_COND(cuda-cudart, REL_AND(__cuda >=12,
// python >=3.10)): "required if the condition's packages are installed".
// Virtual packages are solvables the solver must keep, so a condition on
// them is decided by the machine (or CONDA_OVERRIDE_*); a condition on
// other packages is decided by the solution, inside the SAT problem.
// Needs libsolv built with ENABLE_COMPLEX_DEPS (scripts/setup.sh).
#pragma once

#include <string>

#include "gpuenv/solver/libsolv.hpp"
#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::solver {

// What a dependency spec asks that libsolv's conda dependencies cannot say
// (CEP 44 extras, CEP 45 flags, in the spec or in a condition's leaf);
// empty when nothing. Such a dependency is refused, never cut back.
std::string unsolvable_dependency_part(const specs::MatchSpec& spec);

// The complex dependency for a spec with a `when`; 0 when a part of it
// cannot be expressed (see unsolvable_dependency_part).
Id conditional_dependency(Pool* pool, const specs::MatchSpec& spec);

// Whether `dependency` is one conditional_dependency made (a REL_COND).
bool is_conditional_dependency(Pool* pool, Id dependency) noexcept;

// Whether this libsolv solves REL_COND / REL_AND / REL_OR.
bool complex_dependencies_supported() noexcept;

}  // namespace gpuenv::solver
