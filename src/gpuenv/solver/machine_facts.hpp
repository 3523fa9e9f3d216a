// What the solver knows about the machine it solves for: the virtual
// packages (CEP 30), and a way to put into words why a requirement on one of
// them fails. The words need what detection found (driver release, GPUs,
// overrides), which is the system module's business, so the layer above
// supplies them; without it the solver words failures plainly.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/specs/virtual_package.hpp"

namespace gpuenv::solver {

struct VirtualRequirementFailure {
  std::string requirer;    // "cupy 13.3 h1234_0", or "the request"
  std::string dependency;  // "__cuda >=12"
  bool is_constraint = false;  // from `constrains`, not `depends`
  bool other_builds_fit = false;  // another build of the same package fits the machine
};

struct MachineFacts {
  std::string platform;  // the subdir solved for ("linux-64")
  std::vector<specs::VirtualPackage> virtual_packages;
  // One sentence starting with the requirer; empty: plain words.
  std::function<std::string(const VirtualRequirementFailure&)> explain_virtual_requirement;

  // The version of a virtual package, if present.
  std::optional<std::string> virtual_version(std::string_view name) const;
};

}  // namespace gpuenv::solver
