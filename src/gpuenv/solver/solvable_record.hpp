// Internal to the solver module (includes libsolv): a solvable read back as
// the package record it was made from.
#pragma once

#include <string>

#include "gpuenv/solver/pool_state.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::solver {

enum class RecordDetail {
  identity,  // what MatchSpec matching needs: everything but dependencies
  full,      // depends and constrains too
};

specs::PackageRecord record_of(const PoolState& state, Id solvable,
                               RecordDetail detail = RecordDetail::full);

// "numpy-1.26.4-py312h8753938_0" for messages.
std::string dist_of(const PoolState& state, Id solvable);

// Whether a solvable stands for a virtual package (`__cuda`, ...).
bool is_virtual_solvable(const PoolState& state, Id solvable);

}  // namespace gpuenv::solver
