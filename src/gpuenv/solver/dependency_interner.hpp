// Internal to the solver module (includes libsolv): repodata's dependency
// strings (`numpy >=1.21,<2`, `python_abi 3.12.* *_cp312`) turned into
// libsolv conda dependencies once per distinct string. A channel repeats
// the same few thousand strings hundreds of thousands of times, so the
// cache saves most of the parsing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/solver/libsolv.hpp"

namespace gpuenv::solver {

class DependencyInterner {
 public:
  explicit DependencyInterner(Pool* pool) : pool_(pool) {}

  // The dependency id, or 0 when the text is not a MatchSpec libsolv can
  // use.
  Id intern(std::string_view spec);

  std::size_t unreadable() const noexcept { return unreadable_; }

 private:
  Id parse(std::string_view spec);

  Pool* pool_;
  // Indexed by the pool's string id of the spec text: libsolv's string
  // hash does the lookup, which beats a std::unordered_map of views here.
  std::vector<Id> cache_;
  std::string scratch_;  // a NUL-terminated copy for libsolv's C parser
  std::size_t unreadable_ = 0;
};

// One dependency outside any load (job specs, installed records): parsed
// without a cache.
Id intern_dependency(Pool* pool, std::string_view spec);

}  // namespace gpuenv::solver
