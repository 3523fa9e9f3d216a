// Solving a request against a PackageDatabase: libsolv in conda mode set
// up the way libmamba sets it up (highest version, then build number;
// track_features deprioritized; constrains honoured), with strict,
// flexible or disabled channel priority, pins, and install, update and
// remove jobs. An unsatisfiable request is explained in the user's terms.
#pragma once

#include <expected>
#include <string>
#include <vector>

#include "gpuenv/solver/explanation.hpp"
#include "gpuenv/solver/machine_facts.hpp"
#include "gpuenv/solver/package_database.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::solver {

// conda's channel_priority setting.
enum class ChannelPriority {
  // A package name found in a higher-priority channel is never taken from a
  // lower one.
  strict,
  // Prefer the higher-priority channel, fall back to lower ones when its
  // packages cannot satisfy the request (conda's default).
  flexible,
  // Channel order only breaks ties between equal versions.
  disabled,
};

struct SolveRequest {
  std::vector<specs::MatchSpec> install;
  // Installed packages to move to the best version the specs allow.
  std::vector<specs::MatchSpec> update;
  bool update_all = false;
  // Installed packages to remove, with whatever needs them.
  std::vector<specs::MatchSpec> remove;
  // Constraints on packages that are installed or get installed; a pin
  // never installs anything by itself.
  std::vector<specs::MatchSpec> pins;
  ChannelPriority channel_priority = ChannelPriority::flexible;
  // Solve first over only what can be installed (pool_narrowing.hpp): the
  // same answer, several times faster on big channels. Off only in the
  // tests that prove the answers equal.
  bool narrow_pool = true;
};

struct Solution {
  // In the order to apply them: dependencies before their dependents.
  std::vector<specs::PackageRecord> link;
  std::vector<specs::PackageRecord> unlink;
};

// Why nothing can satisfy the request: one problem tree per independent
// problem, rendered (explanation.hpp) for people and for --json.
struct Unsolvable {
  std::vector<ProblemTree> problems;
  // A one-line summary ("cannot install cupy 13.3 ...").
  std::string summary() const;
  // The trees as indented lines ("└─ ...").
  std::vector<std::string> lines() const;
};

// `machine` says what the virtual packages stand for, so that a failure
// involving __cuda or __cuda_arch names the driver and the way out.
std::expected<Solution, Unsolvable> solve(PackageDatabase& database, const SolveRequest& request,
                                          const MachineFacts& machine = {});

}  // namespace gpuenv::solver
