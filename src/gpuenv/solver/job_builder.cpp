#include "gpuenv/solver/job_builder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuenv/solver/conditional_dependency.hpp"
#include "gpuenv/solver/solvable_record.hpp"
#include "gpuenv/solver/spec_matching.hpp"

namespace gpuenv::solver {
namespace {

std::string spec_text(const specs::MatchSpec& spec) {
  return spec.original().empty() ? spec.str() : spec.original();
}

// The newest few versions of the packages a spec names, for "there is ...".
std::vector<std::string> newest_versions(const PoolState& state, const std::vector<Id>& packages,
                                         std::size_t limit) {
  std::vector<Id> sorted = packages;
  Pool* pool = state.pool;
  std::sort(sorted.begin(), sorted.end(), [&](Id a, Id b) {
    return pool_evrcmp(pool, pool->solvables[a].evr, pool->solvables[b].evr, EVRCMP_COMPARE) > 0;
  });
  std::vector<std::string> versions;
  for (const Id p : sorted) {
    std::string version = pool_id2str(pool, pool->solvables[p].evr);
    if (std::find(versions.begin(), versions.end(), version) == versions.end()) versions.push_back(version);
    if (versions.size() == limit) break;
  }
  return versions;
}

ProblemTree no_match_tree(const PoolState& state, const specs::MatchSpec& spec, const MachineFacts& machine) {
  ProblemTree tree;
  const std::string text = spec_text(spec);
  tree.root.text = fmt::format("cannot install {}: no package matches it", text);
  const auto name = spec.name().exact_value();
  if (name && name->starts_with("__")) {
    const std::string requirement = spec.conda_build_form();
    tree.key_reason = virtual_requirement_text(machine, {"the request", requirement, false, false});
  } else if (!name) {
    tree.key_reason = fmt::format("no package name in the channels matches '{}'", spec.name().str());
  } else if (const auto named = solvables_named(state, *name, MatchScope::channels); named.empty()) {
    tree.key_reason = fmt::format("no package named {} is in the channels", *name);
  } else {
    const auto versions = newest_versions(state, named, 5);
    tree.key_reason = fmt::format("{} has no build matching {} (newest versions: {})", *name, text,
                                  fmt::join(versions, ", "));
  }
  tree.root.children.push_back({tree.key_reason, {}});
  return tree;
}

// What a requested spec asks that the solver cannot honour; empty if
// nothing. Refused with these words rather than solved without the part.
std::string request_refusal(const specs::MatchSpec& spec) {
  if (!spec.extras().empty()) {
    return "optional dependency groups (extras, CEP 44) are not solved by gpuenv yet; install the group's "
           "packages by name instead";
  }
  if (spec.when().empty()) return {};
  if (!complex_dependencies_supported()) {
    return "a condition (CEP 43) needs libsolv built with ENABLE_COMPLEX_DEPS: run scripts/setup.sh";
  }
  if (auto part = unsolvable_dependency_part(spec); !part.empty()) {
    return "it asks for " + part + ", which gpuenv cannot solve in a conditional request yet";
  }
  // A condition becomes a libsolv dependency, which holds a name, a
  // version and a build only.
  if (spec.channel() != nullptr || !spec.subdirs().empty() || !spec.md5().empty() || !spec.sha256().empty() ||
      !spec.fn().empty() || !spec.url().empty() || spec.license() != nullptr || spec.track_features() != nullptr ||
      spec.build_number().op() != specs::BuildNumberSpec::Operator::any) {
    return "a conditional request (when=) can name a package, a version and a build only; drop the other keys "
           "or the condition";
  }
  return {};
}

ProblemTree refused_tree(const specs::MatchSpec& spec, const std::string& refusal) {
  ProblemTree tree;
  tree.root.text = fmt::format("cannot install {}: {}", spec_text(spec), refusal);
  tree.key_reason = refusal;
  tree.root.children.push_back({refusal, {}});
  return tree;
}

Id one_of(Pool* pool, const std::vector<Id>& solvables) {
  Queue q;
  queue_init(&q);
  for (const Id p : solvables) queue_push(&q, p);
  const Id what = pool_queuetowhatprovides(pool, &q);
  queue_free(&q);
  return what;
}

}  // namespace

SolverJobs::SolverJobs() { queue_init(&queue); }
SolverJobs::~SolverJobs() { queue_free(&queue); }

void SolverJobs::push(Id how, Id what, JobRecord record) {
  queue_push2(&queue, how, what);
  records.push_back(std::move(record));
}

const JobRecord* SolverJobs::record_at(Id index) const {
  const auto slot = static_cast<std::size_t>(index / 2);
  return index >= 0 && slot < records.size() ? &records[slot] : nullptr;
}

void build_jobs(PoolState& state, const SolveRequest& request, const MachineFacts& machine, SolverJobs& jobs) {
  Pool* pool = state.pool;
  // Virtual packages describe the machine: the solver may not remove them,
  // and outside the installed repo it must take them (so that constraints
  // on them, like cuda-version's `__cuda >=12`, always apply).
  const Id keep = state.installed != nullptr ? SOLVER_LOCK : SOLVER_INSTALL;
  for (const Id p : state.virtual_packages) {
    jobs.push(keep | SOLVER_SOLVABLE, p, {ProblemGraph::JobKind::lock, dist_of(state, p), {p}});
  }

  for (const auto& spec : request.pins) {
    // A pin rules out every other build of its package (of each package, for
    // a glob name like `cuda-*`); it installs nothing.
    const auto name = spec.name().exact_value();
    const auto named = name ? solvables_named(state, *name, MatchScope::channels)
                            : matching_solvables(state, specs::MatchSpec::parse(spec.name().str()),
                                                 MatchScope::channels);
    std::vector<Id> ruled_out;
    const auto allowed = matching_solvables(state, spec, MatchScope::channels);
    for (const Id p : named) {
      if (std::find(allowed.begin(), allowed.end(), p) == allowed.end()) ruled_out.push_back(p);
    }
    if (ruled_out.empty()) continue;
    jobs.push(SOLVER_ERASE | SOLVER_SOLVABLE_ONE_OF, one_of(pool, ruled_out),
              {ProblemGraph::JobKind::pin, spec_text(spec), ruled_out});
  }

  for (const auto& spec : request.install) {
    if (auto refusal = request_refusal(spec); !refusal.empty()) {
      jobs.early_failures.push_back(refused_tree(spec, refusal));
      continue;
    }
    auto candidates = matching_solvables(state, spec, MatchScope::channels_installed);
    if (candidates.empty()) {
      jobs.early_failures.push_back(no_match_tree(state, spec, machine));
      continue;
    }
    if (!spec.when().empty()) {
      // CEP 43: "install this if the condition holds", decided by the
      // solver as a package's conditional dependency is.
      jobs.push(SOLVER_INSTALL | SOLVER_SOLVABLE_PROVIDES, conditional_dependency(pool, spec),
                {ProblemGraph::JobKind::install, spec_text(spec), std::move(candidates)});
      continue;
    }
    const Id what = one_of(pool, candidates);
    jobs.push(SOLVER_INSTALL | SOLVER_SOLVABLE_ONE_OF, what,
              {ProblemGraph::JobKind::install, spec_text(spec), std::move(candidates)});
  }

  for (const auto& spec : request.update) {
    const auto name_text = spec.name().exact_value();
    const auto installed =
        name_text ? solvables_named(state, *name_text, MatchScope::installed) : std::vector<Id>{};
    if (installed.empty()) continue;  // conda: updating what is not installed does nothing
    const Id name = pool->solvables[installed.front()].name;
    jobs.push(SOLVER_UPDATE | SOLVER_SOLVABLE_NAME, name,
              {ProblemGraph::JobKind::update, spec_text(spec), installed});
    if (!spec.is_only_package_name()) {
      // libsolv's update takes a name; the rest of the spec is enforced by
      // an install job over the matching builds.
      auto candidates = matching_solvables(state, spec, MatchScope::channels_installed);
      if (candidates.empty()) {
        jobs.early_failures.push_back(no_match_tree(state, spec, machine));
        continue;
      }
      const Id what = one_of(pool, candidates);
      jobs.push(SOLVER_INSTALL | SOLVER_SOLVABLE_ONE_OF, what,
                {ProblemGraph::JobKind::update, spec_text(spec), std::move(candidates)});
    }
  }
  if (request.update_all) {
    jobs.push(SOLVER_UPDATE | SOLVER_SOLVABLE_ALL, 0, {ProblemGraph::JobKind::update, "--all", {}});
  }

  for (const auto& spec : request.remove) {
    auto installed = matching_solvables(state, spec, MatchScope::installed);
    std::erase_if(installed, [&](Id p) { return is_virtual_solvable(state, p); });
    if (installed.empty()) {
      ProblemTree tree;
      tree.root.text = fmt::format("cannot remove {}: it is not installed", spec_text(spec));
      tree.key_reason = tree.root.text;
      jobs.early_failures.push_back(std::move(tree));
      continue;
    }
    jobs.removes = true;
    // Every package the spec matches is erased, not only the installed
    // build: otherwise libsolv would swap in another build of it to keep
    // its dependents, where conda removes the dependents.
    auto erased = matching_solvables(state, spec, MatchScope::channels_installed);
    std::erase_if(erased, [&](Id p) { return is_virtual_solvable(state, p); });
    const Id what = one_of(pool, erased);
    jobs.push(SOLVER_ERASE | SOLVER_SOLVABLE_ONE_OF | SOLVER_CLEANDEPS, what,
              {ProblemGraph::JobKind::remove, spec_text(spec), std::move(installed)});
  }
}

}  // namespace gpuenv::solver
