// Internal to the solver module (includes libsolv): one libsolv problem
// read into a ProblemGraph, from the rules libsolv names for it.
#pragma once

#include "gpuenv/solver/job_builder.hpp"
#include "gpuenv/solver/pool_state.hpp"
#include "gpuenv/solver/problem_graph.hpp"

namespace gpuenv::solver {

ProblemGraph analyze_problem(Solver* solver, const PoolState& state, Id problem, const SolverJobs& jobs);

}  // namespace gpuenv::solver
