#include "gpuenv/solver/backend_info.hpp"

#include "gpuenv/solver/libsolv.hpp"

namespace gpuenv::solver {

BackendInfo backend_info() {
  BackendInfo info;
  info.libsolv_version = solv_version;
  // A libsolv without ENABLE_CONDA silently keeps the default dist type.
  Pool* pool = pool_create();
  info.conda_support = pool_setdisttype(pool, DISTTYPE_CONDA) != -1 &&
                       pool->disttype == DISTTYPE_CONDA;
  pool_free(pool);
  return info;
}

}  // namespace gpuenv::solver
