#include "gpuenv/solver/variant_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace gpuenv::solver {
namespace {

Id dependency_name(Pool* pool, Id dep) {
  while (ISRELDEP(dep)) dep = GETRELDEP(pool, dep)->name;
  return dep;
}

class VariantRanker {
 public:
  explicit VariantRanker(PoolState& state) : state_(state), pool_(state.pool) {}

  void run(const SolverJobs& jobs) {
    for (const auto& name : reachable_names(jobs)) rank_name(name);
    for (auto& [repo, data] : layers_) repodata_internalize(data);
  }

 private:
  // Every package name the request can reach through dependencies.
  std::vector<Id> reachable_names(const SolverJobs& jobs) {
    std::vector<Id> queue;
    std::unordered_set<Id> seen;
    const auto visit = [&](Id name) {
      if (seen.insert(name).second) queue.push_back(name);
    };
    for (const auto& record : jobs.records) {
      if (record.kind == ProblemGraph::JobKind::lock) continue;
      for (const Id p : record.candidates) visit(pool_->solvables[p].name);
    }
    for (std::size_t i = 0; i < queue.size(); ++i) {
      for (const Id p : named(queue[i])) {
        const Solvable* s = pool_->solvables + p;
        if (s->solv_requires == 0) continue;
        for (Id* dep = s->repo->idarraydata + s->solv_requires; *dep != 0; ++dep) {
          visit(dependency_name(pool_, *dep));
        }
      }
    }
    return queue;
  }

  std::vector<Id> named(Id name) {
    std::vector<Id> result;
    Pool* pool = pool_;  // FOR_PROVIDES names it
    Id p = 0;
    Id pp = 0;
    FOR_PROVIDES(p, pp, name) {
      const Solvable* s = pool->solvables + p;
      if (s->name == name && PoolState::is_channel(s->repo)) result.push_back(p);
    }
    return result;
  }

  void rank_name(Id name) {
    // Builds tied on version and build number, per (evr, build number).
    std::map<std::pair<Id, std::uint64_t>, std::vector<Id>> groups;
    for (const Id p : named(name)) {
      Solvable* s = pool_->solvables + p;
      groups[{s->evr, solvable_lookup_num(s, state_.keys.build_number, 0)}].push_back(p);
    }
    for (auto& [key, members] : groups) {
      if (members.size() > 1) rank_group(key.second, members);
    }
  }

  // The newest version among the packages that satisfy `dep`; 0 if none.
  Id best_version(Id dep) {
    if (const auto it = best_.find(dep); it != best_.end()) return it->second;
    Id best = 0;
    for (Id* p = pool_->whatprovidesdata + pool_whatprovides(pool_, dep); *p != 0; ++p) {
      const Id evr = pool_->solvables[*p].evr;
      if (best == 0 || pool_evrcmp(pool_, evr, best, EVRCMP_COMPARE) > 0) best = evr;
    }
    best_.emplace(dep, best);
    return best;
  }

  std::unordered_map<Id, Id> requirement_by_name(Id p) {
    std::unordered_map<Id, Id> result;
    const Solvable* s = pool_->solvables + p;
    if (s->solv_requires == 0) return result;
    for (Id* dep = s->repo->idarraydata + s->solv_requires; *dep != 0; ++dep) {
      result.emplace(dependency_name(pool_, *dep), *dep);
    }
    return result;
  }

  // >0 when `a`'s requirements admit newer versions than `b`'s, name by name.
  int compare(const std::unordered_map<Id, Id>& a, const std::unordered_map<Id, Id>& b) {
    int score = 0;
    for (const auto& [name, dep_a] : a) {
      const auto it = b.find(name);
      if (it == b.end() || it->second == dep_a) continue;
      const Id best_a = best_version(dep_a);
      const Id best_b = best_version(it->second);
      if (best_a == best_b) continue;
      if (best_b == 0) ++score;
      else if (best_a == 0) --score;
      else score += pool_evrcmp(pool_, best_a, best_b, EVRCMP_COMPARE) > 0 ? 1 : -1;
    }
    return score;
  }

  void rank_group(std::uint64_t build_number, std::vector<Id>& members) {
    std::vector<std::unordered_map<Id, Id>> requirements;
    for (const Id p : members) requirements.push_back(requirement_by_name(p));
    // A round robin (pairwise preference need not be transitive): the build
    // preferred over the most others ranks first.
    std::vector<int> wins(members.size(), 0);
    for (std::size_t i = 0; i < members.size(); ++i) {
      for (std::size_t j = i + 1; j < members.size(); ++j) {
        const int c = compare(requirements[i], requirements[j]);
        if (c > 0) ++wins[i];
        if (c < 0) ++wins[j];
      }
    }
    std::vector<std::size_t> order(members.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (wins[a] != wins[b]) return wins[a] > wins[b];
      Solvable* sa = pool_->solvables + members[a];
      Solvable* sb = pool_->solvables + members[b];
      const auto ta = solvable_lookup_num(sa, SOLVABLE_BUILDTIME, 0);
      const auto tb = solvable_lookup_num(sb, SOLVABLE_BUILDTIME, 0);
      if (ta != tb) return ta > tb;  // then the newer build, as conda does
      const char* ba = solvable_lookup_str(sa, SOLVABLE_BUILDFLAVOR);
      const char* bb = solvable_lookup_str(sb, SOLVABLE_BUILDFLAVOR);
      const int c = std::string_view(ba ? ba : "").compare(bb ? bb : "");
      if (c != 0) return c > 0;
      return members[a] < members[b];
    });
    for (std::size_t position = 0; position < order.size(); ++position) {
      const Id p = members[order[position]];
      const std::string refined = fmt::format("{}.{}", build_number, order.size() - position);
      repodata_set_id(layer(pool_->solvables[p].repo), p, SOLVABLE_BUILDVERSION,
                      pool_str2id(pool_, refined.c_str(), 1));
    }
  }

  Repodata* layer(Repo* repo) {
    const auto it = layers_.find(repo);
    if (it != layers_.end()) return it->second;
    Repodata* data = repo_add_repodata(repo, 0);
    layers_.emplace(repo, data);
    return data;
  }

  PoolState& state_;
  Pool* pool_;
  std::unordered_map<Id, Id> best_;
  std::unordered_map<Repo*, Repodata*> layers_;
};

}  // namespace

void order_build_variants(PoolState& state, const SolverJobs& jobs) { VariantRanker(state).run(jobs); }

}  // namespace gpuenv::solver
