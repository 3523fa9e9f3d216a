#include "gpuenv/solver/conditional_dependency.hpp"

#include "gpuenv/specs/condition.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::solver {
namespace {

// `name version build` is what libsolv's conda parser reads; the rest of a
// spec (channel, subdir, hashes) has no place in a repodata dependency.
Id plain_dependency(Pool* pool, const specs::MatchSpec& spec) {
  const std::string text = spec.conda_build_form();
  return pool_conda_matchspec(pool, text.c_str());
}

Id condition_dependency(Pool* pool, const specs::Condition& condition) {
  if (condition.kind() == specs::Condition::Kind::spec) return plain_dependency(pool, condition.spec());
  const int flags = condition.kind() == specs::Condition::Kind::all_of ? REL_AND : REL_OR;
  Id joined = 0;
  for (const auto& operand : condition.operands()) {
    const Id id = condition_dependency(pool, operand);
    if (id == 0) return 0;
    joined = joined == 0 ? id : pool_rel2id(pool, joined, id, flags, 1);
  }
  return joined;
}

}  // namespace

std::string unsolvable_dependency_part(const specs::MatchSpec& spec) {
  if (!spec.extras().empty()) return "optional dependency groups (extras, CEP 44)";
  if (!spec.flags().empty()) return "flags (CEP 45)";
  if (spec.when().empty()) return {};
  std::string found;
  try {
    specs::Condition::parse(spec.when()).for_each_spec([&](const specs::MatchSpec& leaf) {
      if (found.empty()) found = unsolvable_dependency_part(leaf);
    });
  } catch (const specs::SpecError&) {
    return "an unreadable condition";
  }
  return found.empty() ? std::string() : found + " inside its condition";
}

Id conditional_dependency(Pool* pool, const specs::MatchSpec& spec) {
  if (!complex_dependencies_supported() || !unsolvable_dependency_part(spec).empty()) return 0;
  try {
    const auto condition = specs::Condition::parse(spec.when());
    const Id target = plain_dependency(pool, spec);
    const Id when = condition_dependency(pool, condition);
    if (target == 0 || when == 0) return 0;
    return pool_rel2id(pool, target, when, REL_COND, 1);
  } catch (const specs::SpecError&) {
    return 0;
  }
}

bool is_conditional_dependency(Pool* pool, Id dependency) noexcept {
  return ISRELDEP(dependency) && GETRELDEP(pool, dependency)->flags == REL_COND;
}

bool complex_dependencies_supported() noexcept {
#ifdef LIBSOLV_FEATURE_COMPLEX_DEPS
  return true;
#else
  return false;
#endif
}

}  // namespace gpuenv::solver
