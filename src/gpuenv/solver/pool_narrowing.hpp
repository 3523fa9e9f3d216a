// Internal to the solver module (includes libsolv): leaving out, before a
// solve, the channel packages no solution can contain, so that libsolv
// builds no rules for them. libsolv adds a conflict rule for every pair of
// builds of one name, and sorts all its rules; on a conda-forge-sized
// closure (numpy with ~700 builds, cupy ~600) that is most of a warm solve.
//
// A package is left out only when it provably cannot be installed:
// - it has the name of an install job's candidates but is not one of them
//   (`python=3.12` is installed, and only one python can be);
// - a pin rules it out;
// - one of its dependencies has no provider left (a `numpy` built for
//   `python >=3.11,<3.12`, once python is 3.12), to a fixed point;
// - under strict channel priority, a lower channel's build of a name a
//   higher channel has (applied first, as libsolv would).
// Installed packages and virtual packages are never left out. The solve
// answers the same: what is left out could not be in any solution. When the
// narrowed solve fails, the solver solves again over everything, so that the
// explanation names every candidate as before.
#pragma once

#include "gpuenv/solver/job_builder.hpp"
#include "gpuenv/solver/pool_state.hpp"

namespace gpuenv::solver {

// While alive, the pool considers only the packages that can be installed
// under `jobs`; the destructor gives the pool back whole.
class PoolNarrowing {
 public:
  PoolNarrowing(PoolState& state, const SolverJobs& jobs, bool strict_channel_priority);
  ~PoolNarrowing();
  PoolNarrowing(const PoolNarrowing&) = delete;
  PoolNarrowing& operator=(const PoolNarrowing&) = delete;

  // How many channel packages were left out (0: the pool is untouched).
  std::size_t left_out() const { return left_out_; }

  // Gives the pool back whole now (the destructor does it otherwise). The
  // solver reads its transaction after this: libsolv orders the steps over
  // the provider index, and the whole index orders them as a solve without
  // narrowing does.
  void restore();

 private:
  PoolState& state_;
  Map considered_{};
  std::size_t left_out_ = 0;
  bool narrowed_ = false;
};

}  // namespace gpuenv::solver
