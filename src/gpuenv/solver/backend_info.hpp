#pragma once

#include <string>

namespace gpuenv::solver {

// What the linked libsolv is and whether it was built the way gpuenv needs
// (conda version comparison and matching). Shown by `gpuenv --version`.
struct BackendInfo {
  std::string libsolv_version;
  bool conda_support = false;
};

BackendInfo backend_info();

}  // namespace gpuenv::solver
