#include "gpuenv/solver/problem_analysis.hpp"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

#include "gpuenv/solver/dependency_interner.hpp"
#include "gpuenv/solver/solvable_record.hpp"
#include "gpuenv/specs/package_filename.hpp"
#include "gpuenv/solver/spec_matching.hpp"

namespace gpuenv::solver {
namespace {

struct RuleInfo {
  Id type = 0;
  Id from = 0;
  Id to = 0;
  Id dep = 0;
  Id rule = 0;
};

Id dependency_name(Pool* pool, Id dep) {
  while (ISRELDEP(dep)) dep = GETRELDEP(pool, dep)->name;
  return dep;
}

std::vector<Id> providers_of(Pool* pool, Id dep) {
  std::vector<Id> providers;
  // The offset first: pool_whatprovides may grow (move) whatprovidesdata.
  const Id offset = pool_whatprovides(pool, dep);
  for (Id* p = pool->whatprovidesdata + offset; *p != 0; ++p) providers.push_back(*p);
  return providers;
}

class GraphBuilder {
 public:
  GraphBuilder(Solver* solver, const PoolState& state, const SolverJobs& jobs)
      : solver_(solver), state_(state), pool_(state.pool), jobs_(jobs) {}

  ProblemGraph build(Id problem) {
    const auto infos = collect(problem);
    for (const auto& info : infos) {
      if (info.from > 0 && info.type != SOLVER_RULE_JOB) involved_.insert(info.from);
      if (info.to > 0 && (info.type & SOLVER_RULE_TYPEMASK) == SOLVER_RULE_PKG) involved_.insert(info.to);
    }
    for (const auto& info : infos) add(info);
    remove_duplicates();
    return std::move(graph_);
  }

 private:
  // One rule can restate another (a same-name conflict from both sides).
  void remove_duplicates() {
    std::set<std::tuple<int, std::size_t, std::size_t, std::string>> conflicts;
    std::erase_if(graph_.conflicts, [&](const ProblemGraph::Conflict& c) {
      const bool symmetric = c.kind == ProblemGraph::ConflictKind::same_name;
      const auto a = symmetric ? std::min(c.package, c.other) : c.package;
      const auto b = symmetric ? std::max(c.package, c.other) : c.other;
      return !conflicts.emplace(static_cast<int>(c.kind), a, b, c.dependency).second;
    });
    std::set<std::pair<std::size_t, std::string>> exclusions;
    std::erase_if(graph_.exclusions, [&](const ProblemGraph::Exclusion& e) {
      return !exclusions.emplace(e.package, e.reason).second;
    });
  }

  std::vector<RuleInfo> collect(Id problem) {
    std::vector<RuleInfo> infos;
    Queue rules;
    Queue details;
    queue_init(&rules);
    queue_init(&details);
    solver_findallproblemrules(solver_, problem, &rules);
    for (int i = 0; i < rules.count; ++i) {
      const Id rule = rules.elements[i];
      solver_allruleinfos(solver_, rule, &details);
      for (int k = 0; k + 3 < details.count; k += 4) {
        infos.push_back({details.elements[k], details.elements[k + 1], details.elements[k + 2],
                         details.elements[k + 3], rule});
      }
    }
    queue_free(&details);
    queue_free(&rules);
    return infos;
  }

  std::size_t package(Id p) {
    if (const auto it = index_of_.find(p); it != index_of_.end()) return it->second;
    const Solvable* s = pool_->solvables + p;
    ProblemGraph::Package package;
    package.name = pool_id2str(pool_, s->name);
    package.version = pool_id2str(pool_, s->evr);
    if (const char* build = solvable_lookup_str(const_cast<Solvable*>(s), SOLVABLE_BUILDFLAVOR)) {
      package.build = build;
    }
    package.installed = !PoolState::is_channel(s->repo);
    package.is_virtual = is_virtual_solvable(state_, p);
    package.channel = PoolState::facts_of(s->repo).source.channel_name;
    graph_.packages.push_back(std::move(package));
    index_of_.emplace(p, graph_.packages.size() - 1);
    return graph_.packages.size() - 1;
  }

  std::vector<std::size_t> packages(const std::vector<Id>& ids) {
    std::vector<std::size_t> result;
    for (const Id p : ids) result.push_back(package(p));
    return result;
  }

  // Whether another build of `p`'s package has its requirement on the
  // virtual package `name` satisfied here.
  bool other_builds_fit(Id p, Id name) {
    const Solvable* source = pool_->solvables + p;
    for (const Id q : solvables_named(state_, pool_id2str(pool_, source->name), MatchScope::channels)) {
      if (q == p) continue;
      const Solvable* s = pool_->solvables + q;
      if (s->solv_requires == 0) continue;
      for (Id* dep = s->repo->idarraydata + s->solv_requires; *dep != 0; ++dep) {
        if (dependency_name(pool_, *dep) == name && !providers_of(pool_, *dep).empty()) return true;
      }
    }
    return false;
  }

  void add_requirement(Id from, Id dep) {
    if (const auto unreadable = as_unreadable_dependency(pool_dep2str(pool_, dep))) {
      // Not a missing package: the record itself is broken, or asks for
      // what gpuenv cannot solve yet.
      const std::string entry =
          std::string(unreadable->field == UnreadableField::depends ? "depends" : "constrains") + " entry '" +
          specs::printable(unreadable->text) + "'";
      const auto unsolvable = unsolvable_dependency_reason(unreadable->field, unreadable->text);
      graph_.exclusions.push_back(
          {package(from), unsolvable.empty()
                              ? "cannot be installed: its " + entry +
                                    " is not a dependency gpuenv can read (the channel's repodata is broken: ask "
                                    "its maintainers to fix the record)"
                              : "cannot be installed: its " + entry + " asks for " + unsolvable +
                                    ", which gpuenv cannot solve in a package record yet; rather than "
                                    "ignore it, gpuenv leaves the record out: choose another build"});
      return;
    }
    const auto providers = providers_of(pool_, dep);
    const std::string dependency_text = pool_dep2str(pool_, dep);
    const auto feature = as_feature_dependency(dependency_text);
    if (feature && providers.empty()) {
      graph_.exclusions.push_back(
          {package(from), "cannot be installed: it has the legacy feature " + specs::printable(*feature) +
                              ", and no package in the channels tracks the feature " + specs::printable(*feature) +
                              " (track_features): choose another build"});
      return;
    }
    ProblemGraph::Requirement requirement;
    requirement.package = package(from);
    requirement.dependency =
        feature ? "a package that tracks the feature " + specs::printable(*feature) : dependency_text;
    std::vector<Id> involved;
    for (const Id p : providers) {
      if (involved_.contains(p)) involved.push_back(p);
    }
    requirement.providers = packages(involved);
    if (providers.empty() && !feature) {
      const Id name = dependency_name(pool_, dep);
      const std::string name_text = pool_id2str(pool_, name);
      if (name_text.starts_with("__")) {
        requirement.other_builds_fit = other_builds_fit(from, name);
      } else {
        std::vector<Id> named = solvables_named(state_, name_text, MatchScope::channels);
        std::sort(named.begin(), named.end(), [&](Id a, Id b) {
          return pool_evrcmp(pool_, pool_->solvables[a].evr, pool_->solvables[b].evr, EVRCMP_COMPARE) > 0;
        });
        for (const Id q : named) {
          std::string version = pool_id2str(pool_, pool_->solvables[q].evr);
          auto& versions = requirement.available_versions;
          if (std::find(versions.begin(), versions.end(), version) == versions.end()) versions.push_back(version);
          if (versions.size() == 5) break;
        }
      }
    }
    if (!seen_requirements_.emplace(requirement.package, requirement.dependency).second) return;
    graph_.requirements.push_back(std::move(requirement));
  }

  void add_job(const RuleInfo& info) {
    const JobRecord* record = jobs_.record_at(info.from);
    if (record == nullptr) return;
    if (record->kind == ProblemGraph::JobKind::pin) {
      // Each of the pin's rules forbids one build: its only literal is -p.
      Queue literals;
      queue_init(&literals);
      solver_ruleliterals(solver_, info.rule, &literals);
      for (int i = 0; i < literals.count; ++i) {
        if (literals.elements[i] < 0) {
          graph_.exclusions.push_back({package(-literals.elements[i]), "is ruled out by the pin " + record->spec});
        }
      }
      queue_free(&literals);
      return;
    }
    if (record->kind == ProblemGraph::JobKind::lock) return;
    const auto slot = static_cast<std::size_t>(info.from / 2);
    if (!seen_jobs_.insert(slot).second) return;
    graph_.jobs.push_back({record->kind, record->spec, packages(record->candidates)});
  }

  void add(const RuleInfo& info) {
    switch (info.type) {
      case SOLVER_RULE_PKG_REQUIRES:
      case SOLVER_RULE_PKG_NOTHING_PROVIDES_DEP:
        add_requirement(info.from, info.dep);
        break;
      case SOLVER_RULE_PKG_CONSTRAINS:
        graph_.conflicts.push_back({ProblemGraph::ConflictKind::constraint, package(info.from), package(info.to),
                                    pool_dep2str(pool_, info.dep)});
        break;
      case SOLVER_RULE_PKG_CONFLICTS:
        graph_.conflicts.push_back({ProblemGraph::ConflictKind::conflict, package(info.from), package(info.to),
                                    pool_dep2str(pool_, info.dep)});
        break;
      case SOLVER_RULE_PKG_SAME_NAME:
        graph_.conflicts.push_back({ProblemGraph::ConflictKind::same_name, package(info.from), package(info.to), ""});
        break;
      case SOLVER_RULE_PKG_NOT_INSTALLABLE:
        graph_.exclusions.push_back({package(info.from), "cannot be installed on this platform"});
        break;
      case SOLVER_RULE_STRICT_REPO_PRIORITY:
        graph_.exclusions.push_back(
            {package(info.from),
             "is ignored: strict channel priority takes this package from a higher-priority channel"});
        break;
      case SOLVER_RULE_UPDATE:
      case SOLVER_RULE_FEATURE:
        if (!is_virtual_solvable(state_, info.from)) {
          graph_.exclusions.push_back(
              {package(info.from), "is installed and stays unless you update or remove it"});
        }
        break;
      case SOLVER_RULE_JOB:
      case SOLVER_RULE_JOB_NOTHING_PROVIDES_DEP:
      case SOLVER_RULE_JOB_UNKNOWN_PACKAGE:
      case SOLVER_RULE_JOB_PROVIDED_BY_SYSTEM:
        add_job(info);
        break;
      default:
        break;  // learnt, choice, best... rules restate the ones above
    }
  }

  Solver* solver_;
  const PoolState& state_;
  Pool* pool_;
  const SolverJobs& jobs_;
  ProblemGraph graph_;
  std::unordered_map<Id, std::size_t> index_of_;
  std::set<Id> involved_;
  std::set<std::size_t> seen_jobs_;
  std::set<std::pair<std::size_t, std::string>> seen_requirements_;
};

}  // namespace

ProblemGraph analyze_problem(Solver* solver, const PoolState& state, Id problem, const SolverJobs& jobs) {
  return GraphBuilder(solver, state, jobs).build(problem);
}

}  // namespace gpuenv::solver
