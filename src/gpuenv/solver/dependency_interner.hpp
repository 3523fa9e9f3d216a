// Internal to the solver module (includes libsolv): repodata's dependency
// strings (`numpy >=1.21,<2`, `python_abi 3.12.* *_cp312`) turned into
// libsolv conda dependencies once per distinct string. A channel repeats
// the same few thousand strings hundreds of thousands of times, so the
// cache saves most of the parsing.
#pragma once

#include <optional>
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

// A channel record's depends or constrains entry that is not a MatchSpec
// ("baz[[[[", "::::"), or one asking what libsolv cannot say (CEP 44
// extras, CEP 45 flags: `x[extras=[gpu]]`). Dropping it would install the record without what
// it needs; instead the record requires a name no package can have (it
// starts with a control character, which no channel record's name may
// hold), so it is never installed, and explanations can name the entry.
enum class UnreadableField { depends, constrains };
struct UnreadableDependency {
  UnreadableField field = UnreadableField::depends;
  std::string_view text;  // as the record wrote it
};
Id unreadable_dependency(Pool* pool, UnreadableField field, std::string_view spec);
// What unreadable_dependency stood for, given the requirement's text
// (pool_dep2str); nullopt for every other dependency.
std::optional<UnreadableDependency> as_unreadable_dependency(std::string_view dependency) noexcept;
// conda's legacy features (resolve.py, ms_depends): a record's `features`
// entry is a dependency on any package that tracks the feature. Trackers
// provide feature_dependency(feature) and featured records require it; the
// name starts with a control character, so no package name can clash.
Id feature_dependency(Pool* pool, std::string_view feature);
// The feature a requirement stands for (given pool_dep2str's text); nullopt
// for every other dependency.
std::optional<std::string_view> as_feature_dependency(std::string_view dependency) noexcept;
// Why a dependency's text cannot be solved ("flags (CEP 45)"); empty when
// it is unreadable for another reason, or readable.
std::string unsolvable_dependency_reason(UnreadableField field, std::string_view dependency);

}  // namespace gpuenv::solver
