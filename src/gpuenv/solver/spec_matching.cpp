#include "gpuenv/solver/spec_matching.hpp"

#include "gpuenv/solver/solvable_record.hpp"

namespace gpuenv::solver {
namespace {

bool in_scope(const Solvable* s, MatchScope scope) {
  if (s->repo == nullptr) return false;
  // The virtual packages count as installed: they are what the machine has.
  const bool installed = !PoolState::is_channel(s->repo);
  switch (scope) {
    case MatchScope::channels: return !installed;
    case MatchScope::channels_installed: return true;
    case MatchScope::installed: return installed;
  }
  return false;
}

template <typename Visit>
void for_each_named(const PoolState& state, Id name, MatchScope scope, Visit&& visit) {
  Pool* pool = state.pool;
  Id p = 0;
  Id pp = 0;
  FOR_PROVIDES(p, pp, name) {
    const Solvable* s = pool->solvables + p;
    if (s->name == name && in_scope(s, scope)) visit(p);
  }
}

}  // namespace

std::vector<Id> solvables_named(const PoolState& state, std::string_view name, MatchScope scope) {
  std::vector<Id> result;
  const Id name_id = pool_strn2id(state.pool, name.data(), static_cast<unsigned int>(name.size()), 0);
  if (name_id == 0) return result;
  for_each_named(state, name_id, scope, [&](Id p) { result.push_back(p); });
  return result;
}

std::vector<Id> matching_solvables(const PoolState& state, const specs::MatchSpec& spec,
                                   MatchScope scope) {
  std::vector<Id> candidates;
  if (const auto exact = spec.name().exact_value()) {
    candidates = solvables_named(state, *exact, scope);
  } else {
    // A glob or regex name: every solvable is a candidate (rare: search).
    Pool* pool = state.pool;
    for (Id p = 2; p < pool->nsolvables; ++p) {
      const Solvable* s = pool->solvables + p;
      if (in_scope(s, scope) && spec.name().matches(pool_id2str(pool, s->name))) {
        candidates.push_back(p);
      }
    }
  }
  // libmamba's is_only_package_name() does not know CEP 45 flags, which
  // still select among the builds.
  if (spec.is_only_package_name() && spec.flags().empty()) return candidates;
  std::vector<Id> result;
  for (const Id p : candidates) {
    if (spec.matches(record_of(state, p, RecordDetail::identity))) result.push_back(p);
  }
  return result;
}

}  // namespace gpuenv::solver
