// Internal to the solver module (includes libsolv): a SolveRequest turned
// into libsolv jobs. Job specs select their candidates through the specs
// module's matcher (spec_matching.hpp); what each job was is remembered so
// that problem rules can be told back in the user's words.
#pragma once

#include <string>
#include <vector>

#include "gpuenv/solver/pool_state.hpp"
#include "gpuenv/solver/problem_graph.hpp"
#include "gpuenv/solver/solver.hpp"

namespace gpuenv::solver {

struct JobRecord {
  ProblemGraph::JobKind kind = ProblemGraph::JobKind::install;
  std::string spec;
  std::vector<Id> candidates;
};

class SolverJobs {
 public:
  SolverJobs();
  ~SolverJobs();
  SolverJobs(const SolverJobs&) = delete;
  SolverJobs& operator=(const SolverJobs&) = delete;

  Queue queue;
  // For each job in `queue` (indexed by its position / 2): what it was.
  std::vector<JobRecord> records;
  // Requests that fail before solving: a spec nothing matches, a removal of
  // something not installed.
  std::vector<ProblemTree> early_failures;
  bool removes = false;

  void push(Id how, Id what, JobRecord record);
  // The record of the job at queue index `index` (as libsolv reports it).
  const JobRecord* record_at(Id index) const;
};

// Requires a current provider index. `machine` words the early failures.
void build_jobs(PoolState& state, const SolveRequest& request, const MachineFacts& machine, SolverJobs& jobs);

}  // namespace gpuenv::solver
