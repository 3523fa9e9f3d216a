#include "gpuenv/solver/solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "gpuenv/solver/job_builder.hpp"
#include "gpuenv/solver/pool_narrowing.hpp"
#include "gpuenv/solver/pool_state.hpp"
#include "gpuenv/solver/problem_analysis.hpp"
#include "gpuenv/solver/solvable_record.hpp"
#include "gpuenv/solver/variant_order.hpp"

namespace gpuenv::solver {
namespace {

// libsolv prefers the repo with the higher priority among a requirement's
// candidates; with SOLVER_FLAG_STRICT_REPO_PRIORITY it also never takes a
// name from a lower-priority repo when a higher one has it. Subpriority
// only breaks ties between equal versions. The installed repo stays at 0:
// strict priority would otherwise shadow the channels' packages with it.
void apply_channel_priority(PoolState& state, ChannelPriority priority) {
  Pool* pool = state.pool;
  int lowest_rank = 0;
  for (int i = 1; i < pool->nrepos; ++i) {
    const Repo* repo = pool->repos[i];
    if (repo != nullptr && PoolState::is_channel(repo)) {
      lowest_rank = std::max(lowest_rank, PoolState::facts_of(repo).source.channel_rank);
    }
  }
  for (int i = 1; i < pool->nrepos; ++i) {
    Repo* repo = pool->repos[i];
    if (repo == nullptr) continue;
    if (!PoolState::is_channel(repo)) {
      repo->priority = 0;
      repo->subpriority = 0;
      continue;
    }
    const int preference = lowest_rank - PoolState::facts_of(repo).source.channel_rank;
    if (priority == ChannelPriority::disabled) {
      repo->priority = 1;
      repo->subpriority = preference;
    } else {
      repo->priority = 1 + preference;
      repo->subpriority = 0;
    }
  }
}

Solution read_transaction(const PoolState& state, Solver* solver) {
  Solution solution;
  Transaction* transaction = solver_create_transaction(solver);
  // libsolv lists the steps in the order it decided them, which depends on
  // the search (and so on pool narrowing); from packages in pool order,
  // transaction_order gives one order for one set of packages.
  std::sort(transaction->steps.elements, transaction->steps.elements + transaction->steps.count);
  transaction_order(transaction, 0);
  for (int i = 0; i < transaction->steps.count; ++i) {
    const Id p = transaction->steps.elements[i];
    if (is_virtual_solvable(state, p)) continue;
    const Solvable* s = state.pool->solvables + p;
    (s->repo == state.installed ? solution.unlink : solution.link).push_back(record_of(state, p));
  }
  transaction_free(transaction);
  return solution;
}

// A tangled request can have hundreds of independent problems, each with
// its own explanation budget: past these, the rest are counted, not shown.
constexpr Id problems_explained = 10;
constexpr std::chrono::seconds explanation_time{4};

Unsolvable read_problems(Solver* solver, const PoolState& state, const SolverJobs& jobs,
                         const MachineFacts& machine) {
  Unsolvable unsolvable;
  const auto count = static_cast<Id>(solver_problem_count(solver));
  const auto deadline = std::chrono::steady_clock::now() + explanation_time;
  for (Id problem = 1; problem <= count; ++problem) {
    const auto now = std::chrono::steady_clock::now();
    if (problem > problems_explained || now >= deadline) {
      ProblemTree rest;
      rest.root.text = fmt::format("... and {} more problems: fix the ones above first, or ask for fewer packages",
                                   count - problem + 1);
      rest.key_reason = rest.root.text;
      unsolvable.problems.push_back(std::move(rest));
      break;
    }
    ExplanationLimits limits;
    limits.time = std::min(limits.time, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
    const auto graph = analyze_problem(solver, state, problem, jobs);
    auto trees = explain_problem(graph, machine, limits);
    if (trees.empty()) {
      // Nothing gpuenv can word better: libsolv's own sentence.
      ProblemTree tree;
      tree.root.text = solver_problem2str(solver, problem);
      tree.key_reason = tree.root.text;
      trees.push_back(std::move(tree));
    }
    for (auto& tree : trees) unsolvable.problems.push_back(std::move(tree));
  }
  return unsolvable;
}

struct SolverHandle {
  Solver* solver;
  ~SolverHandle() { solver_free(solver); }
};

}  // namespace

std::string Unsolvable::summary() const {
  if (problems.empty()) return "the request cannot be satisfied";
  const auto& first = problems.front();
  return first.key_reason.empty() ? first.root.text : first.key_reason;
}

std::vector<std::string> Unsolvable::lines() const {
  std::vector<std::string> lines;
  for (const auto& problem : problems) {
    for (auto& line : render_tree(problem.root)) lines.push_back(std::move(line));
  }
  return lines;
}

namespace {

void set_solver_flags(Solver* solver, const SolverJobs& jobs, const SolveRequest& request) {
  // libmamba's settings: downgrades allowed (a request may need an older
  // version of something installed); uninstalling only when asked to remove.
  solver_set_flag(solver, SOLVER_FLAG_ALLOW_DOWNGRADE, 1);
  solver_set_flag(solver, SOLVER_FLAG_ALLOW_UNINSTALL, jobs.removes ? 1 : 0);
  solver_set_flag(solver, SOLVER_FLAG_STRICT_REPO_PRIORITY, request.channel_priority == ChannelPriority::strict ? 1 : 0);
}

// The solve over only what can be installed (pool_narrowing.hpp); nullopt
// when it finds nothing, or nothing was left out: the caller then solves
// over everything.
std::optional<Solution> solve_narrowed(PoolState& state, const SolverJobs& jobs, const SolveRequest& request,
                                       const MachineFacts& machine) {
  PoolNarrowing narrowing(state, jobs, request.channel_priority == ChannelPriority::strict);
  if (narrowing.left_out() == 0) return std::nullopt;
  // The jobs again, so that they name only what is left.
  SolverJobs narrowed;
  build_jobs(state, request, machine, narrowed);
  if (!narrowed.early_failures.empty()) return std::nullopt;
  VariantOrder variant_order(state, narrowed);
  SolverHandle handle{solver_create(state.pool)};
  set_solver_flags(handle.solver, narrowed, request);
  const int problem_count = solver_solve(handle.solver, &narrowed.queue);
  variant_order.release();  // the records read as loaded from here on
  if (problem_count != 0) return std::nullopt;
  narrowing.restore();
  return read_transaction(state, handle.solver);
}

}  // namespace

std::expected<Solution, Unsolvable> solve(PackageDatabase& database, const SolveRequest& request,
                                          const MachineFacts& machine) {
  PoolState& state = database.state();
  apply_channel_priority(state, request.channel_priority);
  state.ensure_whatprovides();

  {
    SolverJobs jobs;
    build_jobs(state, request, machine, jobs);
    if (!jobs.early_failures.empty()) return std::unexpected(Unsolvable{std::move(jobs.early_failures)});
    if (request.narrow_pool) {
      if (auto solution = solve_narrowed(state, jobs, request, machine)) return std::move(*solution);
    }
  }

  // Over everything: what a narrowed pool could not solve gets the
  // explanation that names every candidate. The jobs are built again: a
  // job's candidate list lives in the provider index, which narrowing and
  // restoring rebuilt.
  SolverJobs jobs;
  build_jobs(state, request, machine, jobs);
  if (!jobs.early_failures.empty()) return std::unexpected(Unsolvable{std::move(jobs.early_failures)});
  VariantOrder variant_order(state, jobs);
  SolverHandle handle{solver_create(state.pool)};
  set_solver_flags(handle.solver, jobs, request);
  const int problem_count = solver_solve(handle.solver, &jobs.queue);
  variant_order.release();  // the records read as loaded from here on
  if (problem_count != 0) {
    return std::unexpected(read_problems(handle.solver, state, jobs, machine));
  }
  return read_transaction(state, handle.solver);
}

}  // namespace gpuenv::solver
