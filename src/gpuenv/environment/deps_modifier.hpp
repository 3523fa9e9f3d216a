// --no-deps and --only-deps (create, install): conda's deps modifiers. The
// solve is the ordinary one; its solution is then cut down as conda's
// solver does after the SAT solve (conda/core/solve.py, _post_sat_handling).
#pragma once

#include <vector>

#include "gpuenv/solver/solver.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::environment {

enum class DepsModifier {
  none,
  // Only the packages the requested specs match are linked (replacing the
  // installed package of the same name); nothing else is installed, updated
  // or removed. The environment may be left broken, as conda warns.
  no_deps,
  // The requested packages that nothing else in the resulting environment
  // needs are left out (and an installed version of one stays as it is);
  // their dependencies are installed.
  only_deps,
};

// Cuts `solution` (a diff against `installed`) down for `modifier`;
// `requested` are the specs the user asked for in this command.
void apply_deps_modifier(solver::Solution& solution, DepsModifier modifier,
                         const std::vector<specs::MatchSpec>& requested,
                         const std::vector<specs::PackageRecord>& installed);

}  // namespace gpuenv::environment
