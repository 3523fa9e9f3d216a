#include "gpuenv/solver/variant_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace gpuenv::solver {
namespace {

Id dependency_name(Pool* pool, Id dep) {
  while (ISRELDEP(dep)) dep = GETRELDEP(pool, dep)->name;
  return dep;
}

std::vector<Id> id_array(Solvable* s, Id key) {
  Queue q;
  queue_init(&q);
  solvable_lookup_idarray(s, key, &q);
  std::vector<Id> ids(q.elements, q.elements + q.count);
  queue_free(&q);
  return ids;
}

// How far down requirements a track_feature is looked for.
constexpr int feature_search_depth = 3;

class VariantRanker {
 public:
  explicit VariantRanker(PoolState& state) : state_(state), pool_(state.pool) {}

  std::vector<Repodata*> run(const SolverJobs& jobs) {
    collect_request(jobs);
    for (const auto& name : reachable_names(jobs)) rank_name(name);
    // Only now: the ranking above reads the track_features as loaded.
    for (const auto& [p, track_features] : track_feature_overrides_) {
      Repodata* data = layer(pool_->solvables[p].repo);
      if (track_features.empty()) {
        repodata_unset(data, p, SOLVABLE_TRACK_FEATURES);
      } else {
        for (const Id f : track_features) repodata_add_idarray(data, p, SOLVABLE_TRACK_FEATURES, f);
      }
    }
    std::vector<Repodata*> layers;
    for (auto& [repo, data] : layers_) {
      repodata_internalize(data);
      layers.push_back(data);
    }
    return layers;
  }

 private:
  // The names the request asks for, and the features that are on: tracked
  // by every build of a request's newest version (conda settles the
  // requested versions first: `nomkl` is nomkl 3.0, which tracks nomkl) or
  // by an installed package.
  void collect_request(const SolverJobs& jobs) {
    for (const auto& record : jobs.records) {
      if (record.kind != ProblemGraph::JobKind::install && record.kind != ProblemGraph::JobKind::update) continue;
      if (record.candidates.empty()) continue;
      Id newest = 0;
      for (const Id p : record.candidates) {
        requested_names_.insert(pool_->solvables[p].name);
        const Id evr = pool_->solvables[p].evr;
        if (newest == 0 || pool_evrcmp(pool_, evr, newest, EVRCMP_COMPARE) > 0) newest = evr;
      }
      std::optional<std::vector<Id>> common;
      for (const Id p : record.candidates) {
        if (pool_->solvables[p].evr != newest) continue;
        const auto tracked = id_array(pool_->solvables + p, SOLVABLE_TRACK_FEATURES);
        if (!common) {
          common = tracked;
        } else {
          std::erase_if(*common, [&](Id f) { return std::find(tracked.begin(), tracked.end(), f) == tracked.end(); });
        }
      }
      if (common) active_features_.insert(common->begin(), common->end());
    }
    if (state_.installed != nullptr) {
      Solvable* s = nullptr;
      Id p = 0;
      FOR_REPO_SOLVABLES(state_.installed, p, s) {
        for (const Id f : id_array(s, SOLVABLE_TRACK_FEATURES)) active_features_.insert(f);
      }
    }
  }

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
          const Id name = dependency_name(pool_, *dep);
          note_requirer(name, queue[i]);
          visit(name);
        }
      }
    }
    return queue;
  }

  // Up to two package names that require `name`: enough to tell whether
  // anything but one package needs it.
  void note_requirer(Id name, Id requirer) {
    auto& [first, second] = requirers_[name];
    if (first == 0 || first == requirer) first = requirer;
    else if (second == 0) second = requirer;
  }

  // How many of a build's dependencies only its own package needs among
  // everything the request can reach: the packages choosing this build
  // would add, where another build of it does without them. A stand-in for
  // conda's package count, which is global (generate_package_count).
  std::size_t own_dependency_count(const std::unordered_map<Id, Id>& requirements) {
    std::size_t count = 0;
    for (const auto& [name, dep] : requirements) {
      if (requested_names_.contains(name)) continue;
      const auto it = requirers_.find(name);
      const bool only_this_package = it == requirers_.end() || it->second.second == 0;
      if (only_this_package) ++count;
    }
    return count;
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
    // Builds tied on version and build number, per (evr, build number). A
    // requested package's builds are ranked per version: conda maximises
    // its version before it minimises track_features, then its build
    // number (resolve.py: eq_req_v, eq_feature_count, eq_req_b), where
    // libsolv would weigh track_features before the version. So libsolv
    // does not see their track_features; the rank carries them.
    const bool requested = requested_names_.contains(name);
    const auto builds = named(name);
    std::map<std::pair<Id, std::uint64_t>, std::vector<Id>> groups;
    for (const Id p : builds) {
      Solvable* s = pool_->solvables + p;
      const std::uint64_t build_number = solvable_lookup_num(s, state_.keys.build_number, 0);
      groups[{s->evr, requested ? 0 : build_number}].push_back(p);
      if (requested) {
        const std::size_t count = track_feature_count(p);
        track_feature_counts_[p] = count;
        if (count != 0) track_feature_overrides_.emplace_back(p, std::vector<Id>{});
      }
    }
    if (!requested) mark_misfeatured(builds);
    for (auto& [key, members] : groups) {
      if (members.size() > 1) rank_group(requested, key.second, members);
    }
  }

  // conda's feature metric comes before the dependencies' versions: with a
  // feature on, a build of a package that has featured builds but lacks
  // the feature counts against the solution, whatever its version. libsolv
  // weighs track_features before versions, so such builds get one more.
  void mark_misfeatured(const std::vector<Id>& builds) {
    std::unordered_set<Id> offered;
    for (const Id p : builds) {
      for (const Id f : id_array(pool_->solvables + p, state_.keys.features)) {
        if (active_features_.contains(f)) offered.insert(f);
      }
    }
    if (offered.empty()) return;
    const Id marker = pool_str2id(pool_, "\x02misfeatured", 1);
    for (const Id p : builds) {
      const auto features = id_array(pool_->solvables + p, state_.keys.features);
      const bool lacks = std::any_of(offered.begin(), offered.end(), [&](Id f) {
        return std::find(features.begin(), features.end(), f) == features.end();
      });
      if (!lacks) continue;
      auto track_features = id_array(pool_->solvables + p, SOLVABLE_TRACK_FEATURES);
      track_features.push_back(marker);
      track_feature_overrides_.emplace_back(p, std::move(track_features));
    }
  }

  // Whether installing `p` brings in a track_feature that is not on: its
  // own, or through a requirement only such packages satisfy (numpy's
  // openblas build pins a numpy-base build that needs `blas * openblas`,
  // which tracks nomkl). A few levels deep; a cycle counts as no.
  bool brings_track_feature(Id p, int depth) {
    // A feature that is on anyway adds nothing to conda's count.
    for (const Id f : id_array(pool_->solvables + p, SOLVABLE_TRACK_FEATURES)) {
      if (!active_features_.contains(f)) return true;
    }
    if (depth == 0) return false;
    if (const auto it = brings_feature_.find(p); it != brings_feature_.end()) return it->second;
    brings_feature_[p] = false;
    bool brings = false;
    for (const auto& [name, dep] : requirement_by_name(p)) {
      if (only_featured_providers(dep, depth - 1)) {
        brings = true;
        break;
      }
    }
    brings_feature_[p] = brings;
    return brings;
  }

  bool only_featured_providers(Id dep, int depth) {
    if (const auto it = featured_only_.find(dep); it != featured_only_.end()) return it->second;
    const Id offset = pool_whatprovides(pool_, dep);
    std::vector<Id> providers;
    for (Id* q = pool_->whatprovidesdata + offset; *q != 0; ++q) providers.push_back(*q);
    bool all = !providers.empty();
    for (const Id q : providers) {
      if (!brings_track_feature(q, depth)) {
        all = false;
        break;
      }
    }
    featured_only_[dep] = all;
    return all;
  }

  // How many of a build's requirements only packages that bring a
  // track_feature satisfy: conda minimises track_features before the
  // package count and the dependencies' versions.
  std::size_t tracked_requirements(const std::unordered_map<Id, Id>& requirements) {
    std::size_t count = 0;
    for (const auto& [name, dep] : requirements) {
      if (only_featured_providers(dep, feature_search_depth)) ++count;
    }
    return count;
  }

  // conda's feature metric: a build with a feature that is on beats one
  // without it; a build with a feature that is off needs a tracker, which
  // adds a feature, so it comes after.
  int feature_fit(Id p) {
    int fit = 0;
    for (const Id f : id_array(pool_->solvables + p, state_.keys.features)) fit += active_features_.contains(f) ? 1 : -1;
    return fit;
  }

  std::size_t track_feature_count(Id p) {
    Solvable* s = pool_->solvables + p;
    return id_array(s, SOLVABLE_TRACK_FEATURES).size();
  }

  // The newest version among the packages that satisfy `dep`; 0 if none.
  Id best_version(Id dep) {
    if (const auto it = best_.find(dep); it != best_.end()) return it->second;
    Id best = 0;
    // The offset first: pool_whatprovides may grow (move) whatprovidesdata.
    const Id offset = pool_whatprovides(pool_, dep);
    for (Id* p = pool_->whatprovidesdata + offset; *p != 0; ++p) {
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

  // The order within a group follows resolve.py's objectives: (requested
  // packages: fewer track_features, then the higher build number), the
  // feature metric, fewer requirements only featured packages satisfy,
  // newer dependency versions, fewer packages pulled in
  // (generate_package_count), and only then the newer timestamp. Equal
  // builds keep the channel's order: a build string says nothing about
  // which build is better ("py36_nomkl_0" is not above "py36_0").
  void rank_group(bool requested, std::uint64_t build_number, std::vector<Id>& members) {
    std::vector<std::unordered_map<Id, Id>> requirements;
    std::vector<std::size_t> track_features;
    std::vector<std::uint64_t> build_numbers;
    std::vector<int> fits;
    for (const Id p : members) {
      requirements.push_back(requirement_by_name(p));
      // Counted before the layer hid them from libsolv.
      track_features.push_back(requested ? track_feature_counts_[p] : 0);
      build_numbers.push_back(solvable_lookup_num(pool_->solvables + p, state_.keys.build_number, 0));
      fits.push_back(feature_fit(p));
    }
    std::vector<std::size_t> tracked;
    for (const auto& requirement : requirements) tracked.push_back(tracked_requirements(requirement));
    std::vector<std::size_t> own_dependencies;
    for (const auto& requirement : requirements) {
      own_dependencies.push_back(own_dependency_count(requirement));
    }
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
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (track_features[a] != track_features[b]) return track_features[a] < track_features[b];
      if (build_numbers[a] != build_numbers[b]) return build_numbers[a] > build_numbers[b];
      if (fits[a] != fits[b]) return fits[a] > fits[b];
      if (tracked[a] != tracked[b]) return tracked[a] < tracked[b];
      if (wins[a] != wins[b]) return wins[a] > wins[b];
      if (own_dependencies[a] != own_dependencies[b]) return own_dependencies[a] < own_dependencies[b];
      Solvable* sa = pool_->solvables + members[a];
      Solvable* sb = pool_->solvables + members[b];
      const auto ta = solvable_lookup_num(sa, SOLVABLE_BUILDTIME, 0);
      const auto tb = solvable_lookup_num(sb, SOLVABLE_BUILDTIME, 0);
      if (ta != tb) return ta > tb;
      return members[a] < members[b];
    });
    for (std::size_t position = 0; position < order.size(); ++position) {
      const Id p = members[order[position]];
      // A requested package's group spans build numbers: the rank alone.
      const std::string refined = requested ? std::to_string(order.size() - position)
                                            : fmt::format("{}.{}", build_number, order.size() - position);
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
  std::unordered_set<Id> requested_names_;
  std::unordered_set<Id> active_features_;
  std::unordered_map<Id, std::size_t> track_feature_counts_;
  // Track features libsolv sees instead of the loaded ones (empty: none).
  std::vector<std::pair<Id, std::vector<Id>>> track_feature_overrides_;
  std::unordered_map<Id, bool> featured_only_;
  std::unordered_map<Id, bool> brings_feature_;
  std::unordered_map<Id, std::pair<Id, Id>> requirers_;
  std::unordered_map<Id, Id> best_;
  std::unordered_map<Repo*, Repodata*> layers_;
};

}  // namespace

VariantOrder::VariantOrder(PoolState& state, const SolverJobs& jobs) : layers_(VariantRanker(state).run(jobs)) {}

VariantOrder::~VariantOrder() { release(); }

void VariantOrder::release() {
  for (Repodata* data : layers_) repodata_free(data);
  layers_.clear();
}

}  // namespace gpuenv::solver
