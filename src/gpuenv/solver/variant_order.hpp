// Internal to the solver module (includes libsolv): which of several builds
// of one package version to prefer.
//
// libsolv 0.7.23 orders candidates of one name by track_features, version,
// channel subpriority, build number and then the build string compared as
// a version. Builds that differ only in what they were built against
// (py311/py312, CUDA 11.8/12.6/13.0 variants with hash build strings) share
// version and build number, so the build string -- often a hash -- would
// decide. conda instead ends up with the variant whose dependencies are
// newest, and rattler sorts such builds by the highest versions their
// dependencies allow. gpuenv does the same: before solving, each group of
// tied builds reachable from the request is ranked by comparing, dependency
// name by dependency name, the newest version each build's requirement
// admits among the packages present (a driver too old for a CUDA 13 build
// leaves that build with nothing for `__cuda >=13`). The ranking is stored
// as a refined SOLVABLE_BUILDVERSION ("<build number>.<rank>") in an extra
// repodata layer, which libsolv's lookups prefer over the loaded data; the
// reported build number is unaffected. Legacy features and conda's
// objective order shape the ranking too (see rank_group).
#pragma once

#include "gpuenv/solver/job_builder.hpp"
#include "gpuenv/solver/pool_state.hpp"

#include <vector>

namespace gpuenv::solver {

// The ranking of one solve: it depends on the request (requested names,
// features that are on), so it is given back when the solve is done.
class VariantOrder {
 public:
  VariantOrder(PoolState& state, const SolverJobs& jobs);
  ~VariantOrder();
  VariantOrder(const VariantOrder&) = delete;
  VariantOrder& operator=(const VariantOrder&) = delete;

  // Removes the layers: the records read as loaded again (their
  // track_features included).
  void release();

 private:
  std::vector<Repodata*> layers_;
};

}  // namespace gpuenv::solver
