#include "gpuenv/solver/dependency_interner.hpp"

#include <algorithm>

#include "gpuenv/solver/conditional_dependency.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::solver {
namespace {

// libsolv's conda parser reads `name version build` only. Brackets
// (`numpy[version='>=1.8']`), channel prefixes, the parenthesised groups
// legacy and R channels write (`r-rbokeh (>=0.4.2)`, `r (optional)`: conda
// drops them) and `===` (conda's `==`) need conda's grammar first; the
// result is cut back to what libsolv can express.
bool needs_matchspec_grammar(std::string_view spec) noexcept {
  return spec.find_first_of("[(") != std::string_view::npos || spec.find("::") != std::string_view::npos ||
         spec.find("===") != std::string_view::npos;
}

Id parse_with_libsolv(Pool* pool, std::string& scratch, std::string_view spec) {
  scratch.assign(spec);
  return pool_conda_matchspec(pool, scratch.c_str());
}

Id parse_dependency(Pool* pool, std::string& scratch, std::string_view spec) {
  if (!needs_matchspec_grammar(spec)) return parse_with_libsolv(pool, scratch, spec);
  try {
    const auto parsed = specs::MatchSpec::parse(spec);
    if (!parsed.when().empty()) return conditional_dependency(pool, parsed);
    // Cut back to `name version build`, extras or flags would be dropped
    // without a word: unreadable, the record is not installed at all.
    if (!unsolvable_dependency_part(parsed).empty()) return 0;
    return parse_with_libsolv(pool, scratch, parsed.conda_build_form());
  } catch (const specs::SpecError&) {
    return 0;
  }
}

}  // namespace

// The cache stores id + 1 so that 0 means "not parsed yet".
Id DependencyInterner::intern(std::string_view spec) {
  const Id text = pool_strn2id(pool_, spec.data(), static_cast<unsigned int>(spec.size()), 1);
  const auto slot = static_cast<std::size_t>(text);
  if (slot >= cache_.size()) cache_.resize(std::max<std::size_t>(slot + 1, cache_.size() * 2), 0);
  if (cache_[slot] != 0) return cache_[slot] - 1;
  const Id id = parse(spec);
  cache_[slot] = id + 1;
  return id;
}

Id DependencyInterner::parse(std::string_view spec) {
  const Id id = parse_dependency(pool_, scratch_, spec);
  if (id == 0) ++unreadable_;
  return id;
}

Id intern_dependency(Pool* pool, std::string_view spec) {
  std::string scratch;
  return parse_dependency(pool, scratch, spec);
}

namespace {
constexpr std::string_view unreadable_depends_marker = "\x01unreadable depends\x01";
constexpr std::string_view unreadable_constrains_marker = "\x01unreadable constrains\x01";
constexpr std::string_view feature_marker = "\x02" "feature\x02";
}  // namespace

Id feature_dependency(Pool* pool, std::string_view feature) {
  std::string name(feature_marker);
  name.append(feature);
  return pool_strn2id(pool, name.data(), static_cast<unsigned int>(name.size()), 1);
}

std::optional<std::string_view> as_feature_dependency(std::string_view dependency) noexcept {
  if (!dependency.starts_with(feature_marker)) return std::nullopt;
  return dependency.substr(feature_marker.size());
}

Id unreadable_dependency(Pool* pool, UnreadableField field, std::string_view spec) {
  std::string name(field == UnreadableField::depends ? unreadable_depends_marker : unreadable_constrains_marker);
  name.append(spec);
  return pool_strn2id(pool, name.data(), static_cast<unsigned int>(name.size()), 1);
}

std::string unsolvable_dependency_reason(UnreadableField field, std::string_view dependency) {
  if (dependency.find('[') == std::string_view::npos) return {};
  try {
    const auto spec = specs::MatchSpec::parse(dependency);
    if (!spec.when().empty() && !complex_dependencies_supported()) {
      return "a condition (CEP 43), which needs libsolv built with ENABLE_COMPLEX_DEPS (run scripts/setup.sh)";
    }
    if (field == UnreadableField::constrains && !spec.when().empty()) {
      return "a condition (CEP 43, when " + std::string(spec.when()) + ") on a constraint";
    }
    return unsolvable_dependency_part(spec);
  } catch (const specs::SpecError&) {
    return {};
  }
}

std::optional<UnreadableDependency> as_unreadable_dependency(std::string_view dependency) noexcept {
  if (dependency.empty() || dependency.front() != '\x01') return std::nullopt;
  for (const auto& [marker, field] : {std::pair{unreadable_depends_marker, UnreadableField::depends},
                                     std::pair{unreadable_constrains_marker, UnreadableField::constrains}}) {
    if (dependency.starts_with(marker)) return UnreadableDependency{field, dependency.substr(marker.size())};
  }
  return std::nullopt;
}

}  // namespace gpuenv::solver
