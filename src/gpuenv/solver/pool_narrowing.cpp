#include "gpuenv/solver/pool_narrowing.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace gpuenv::solver {
namespace {

bool is_channel_solvable(const Pool* pool, Id p) {
  const Solvable* s = pool->solvables + p;
  return s->repo != nullptr && PoolState::is_channel(s->repo);
}

// Rules out, by the jobs alone, what cannot be installed: the other builds
// of a name an install job chooses among, and what a pin erases.
void exclude_by_jobs(Pool* pool, const SolverJobs& jobs, std::vector<char>& possible) {
  // One mark vector for every job, cleared after each: an environment file
  // may hold hundreds of specs over a pool of hundreds of thousands.
  std::vector<char> chosen(static_cast<std::size_t>(pool->nsolvables), 0);
  for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(jobs.queue.count); i += 2) {
    const Id how = jobs.queue.elements[i];
    const JobRecord* record = jobs.record_at(static_cast<Id>(i));
    if (record == nullptr || (how & SOLVER_SELECTMASK) != SOLVER_SOLVABLE_ONE_OF) continue;
    const Id job = how & SOLVER_JOBMASK;
    if (job == SOLVER_ERASE) {
      for (const Id p : record->candidates) {
        if (is_channel_solvable(pool, p)) possible[p] = 0;
      }
      continue;
    }
    if (job != SOLVER_INSTALL || record->candidates.empty()) continue;
    const Id name = pool->solvables[record->candidates.front()].name;
    const bool one_name = std::all_of(record->candidates.begin(), record->candidates.end(),
                                      [&](Id p) { return pool->solvables[p].name == name; });
    if (!one_name) continue;
    for (const Id p : record->candidates) chosen[p] = 1;
    Id p = 0;
    Id pp = 0;
    FOR_PROVIDES(p, pp, name) {
      if (pool->solvables[p].name == name && !chosen[p] && is_channel_solvable(pool, p)) possible[p] = 0;
    }
    for (const Id candidate : record->candidates) chosen[candidate] = 0;
  }
}

// Strict channel priority (libsolv's SOLVER_FLAG_STRICT_REPO_PRIORITY):
// a name found in a channel hides that name in every lower one, whether or
// not its builds there can be installed. Applied here first, so that
// leaving out an uninstallable build never lets a lower channel's build of
// the name through.
void exclude_by_strict_priority(Pool* pool, std::vector<char>& possible) {
  std::vector<int> best(static_cast<std::size_t>(pool->ss.nstrings), std::numeric_limits<int>::min());
  for (Id p = 2; p < pool->nsolvables; ++p) {
    if (!is_channel_solvable(pool, p)) continue;
    const Solvable* s = pool->solvables + p;
    best[s->name] = std::max(best[s->name], s->repo->priority);
  }
  for (Id p = 2; p < pool->nsolvables; ++p) {
    if (!is_channel_solvable(pool, p)) continue;
    const Solvable* s = pool->solvables + p;
    if (s->repo->priority < best[s->name]) possible[p] = 0;
  }
}

// A package with a dependency nothing possible provides is not possible
// either; repeated until nothing changes.
void exclude_unsatisfiable(Pool* pool, std::vector<char>& possible) {
  for (bool changed = true; changed;) {
    changed = false;
    for (Id p = 2; p < pool->nsolvables; ++p) {
      if (!possible[p] || !is_channel_solvable(pool, p)) continue;
      const Solvable* s = pool->solvables + p;
      if (!s->solv_requires) continue;
      for (const Id* dep = s->repo->idarraydata + s->solv_requires; *dep != 0; ++dep) {
        bool provided = false;
        for (const Id* provider = pool_whatprovides_ptr(pool, *dep); *provider != 0; ++provider) {
          if (possible[*provider]) {
            provided = true;
            break;
          }
        }
        if (!provided) {
          possible[p] = 0;
          changed = true;
          break;
        }
      }
    }
  }
}

}  // namespace

PoolNarrowing::PoolNarrowing(PoolState& state, const SolverJobs& jobs, bool strict_channel_priority)
    : state_(state) {
  Pool* pool = state.pool;
  std::vector<char> possible(static_cast<std::size_t>(pool->nsolvables), 1);
  if (strict_channel_priority) exclude_by_strict_priority(pool, possible);
  exclude_by_jobs(pool, jobs, possible);
  exclude_unsatisfiable(pool, possible);
  map_init(&considered_, pool->nsolvables);
  for (Id p = 0; p < pool->nsolvables; ++p) {
    if (possible[p]) {
      MAPSET(&considered_, p);
    } else {
      ++left_out_;
    }
  }
  if (left_out_ == 0) return;
  pool->considered = &considered_;
  narrowed_ = true;
  // The provider index must forget what is left out, or rules would still
  // name it.
  state.invalidate_whatprovides();
  state.ensure_whatprovides();
}

void PoolNarrowing::restore() {
  if (!narrowed_) return;
  narrowed_ = false;
  state_.pool->considered = nullptr;
  state_.invalidate_whatprovides();
  state_.ensure_whatprovides();
}

PoolNarrowing::~PoolNarrowing() {
  restore();
  map_free(&considered_);
}

}  // namespace gpuenv::solver
