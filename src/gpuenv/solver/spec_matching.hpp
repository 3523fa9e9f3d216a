// Internal to the solver module (includes libsolv): the solvables a
// MatchSpec selects, decided by the specs module's conda matching rather
// than libsolv's approximation, so that every field of a user's spec
// (channel, subdir, build_number, md5, brackets...) counts exactly as in
// conda.
#pragma once

#include <vector>

#include "gpuenv/solver/pool_state.hpp"
#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::solver {

enum class MatchScope {
  channels,            // channel repos only (search, pins)
  channels_installed,  // and the installed repo, virtual packages included (install jobs)
  installed,           // the installed repo only (update, remove)
};

// Requires a current provider index (PoolState::ensure_whatprovides).
std::vector<Id> matching_solvables(const PoolState& state, const specs::MatchSpec& spec, MatchScope scope);

// Every solvable named `name` in the scope, matching or not.
std::vector<Id> solvables_named(const PoolState& state, std::string_view name, MatchScope scope);

}  // namespace gpuenv::solver
