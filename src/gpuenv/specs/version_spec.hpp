// conda's version specs: `>=1.2,<2|3.*`, `1.2.*`, `=1.2`, `~=1.2`, `1.*.0`, `^1\.2$`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/specs/version.hpp"

namespace gpuenv::specs {

// Which implementation's grammar a spec is read with. conda is the default and
// the reference; the rattler modes exist because rattler-build recipes and pixi
// manifests are written for them.
enum class ParseMode : std::uint8_t {
  conda,    // conda's VersionSpec (CEP 29), with the differences in docs/spec-deviations.md
  lenient,  // rattler's lenient mode: `>=1.2.*` -> `>=1.2`, `2023.*.*` -> `2023.*`,
            // `>=*`/`==*`/`=*`/`~=*`/`<=*` -> `*`; no regexes, no inner globs
  strict,   // rattler's strict mode: no operator with a glob (`>=1.2.*`, `=*`),
            // no bare `1.2` (ambiguous), no `*.*`, no regexes, no inner globs
};

// What one clause of a spec tests.
enum class VersionOperator : std::uint8_t {
  any,              // `*` (or an empty spec)
  equal,            // `==1.2`, and a bare `1.2`
  not_equal,        // `!=1.2`
  less,             // `<1.2`
  less_equal,       // `<=1.2`
  greater,          // `>1.2`
  greater_equal,    // `>=1.2`
  starts_with,      // `1.2.*`, `1.2*`, `=1.2`, `=1.2.*`
  not_starts_with,  // `!=1.2.*`
  compatible,       // `~=1.2`
  glob,             // `1.*.0`, `=1.*.0`: '*' matches any text of the version
  not_glob,         // `!=1.*.0`
  regex,            // `^1\.2\.[0-9]+$`
};

// The printed forms of the projects whose conformance tables gpuenv follows.
enum class SpecStyle : std::uint8_t {
  conda,        // str(VersionSpec): each clause as written (`1.2*` -> `1.2.*`), and
                // conda's lossy joining: groups lose their parentheses
  libmamba,     // VersionSpec::str(): `==1.2` for a bare `1.2`, `=1.2` for `1.2.*`
  conda_build,  // libmamba's conda-build form: like libmamba, but `1.2.*` for prefixes
  rattler,      // rattler's Display: `==1.2`, `1.2.*`, minimal parentheses
};

// A boolean expression of version clauses: `,` (and) binds tighter than `|`
// (or); parentheses group. Values are immutable and cheap to copy (clauses are
// shared), and contains() never allocates except for regex clauses.
class VersionSpec {
 public:
  // The spec that contains every version (`*`).
  VersionSpec();

  // Throws SpecError naming the text and the column of the problem. An empty
  // (or all-space) text is the free spec, like `*`.
  static VersionSpec parse(std::string_view text, ParseMode mode = ParseMode::conda);
  static VersionSpec any() { return VersionSpec(); }
  // A single clause `op version`; op must be an ordered, equality, prefix or
  // compatible operator (not any/glob/not_glob/regex).
  static VersionSpec from_operator(VersionOperator op, Version version);

  bool contains(const Version& version) const;

  // conda's canonical form; see SpecStyle for the others.
  std::string str(SpecStyle style = SpecStyle::conda) const;
  std::string str_libmamba() const { return str(SpecStyle::libmamba); }
  std::string str_conda_build() const { return str(SpecStyle::conda_build); }
  std::string str_rattler() const { return str(SpecStyle::rattler); }

  // conda's is_exact(): a single `==1.2` or bare `1.2` clause.
  bool is_exact() const noexcept;
  // Nothing but `*` (or empty): the spec says nothing about the version.
  bool is_explicitly_free() const noexcept;
  // Some clause matches by glob (`1.*.0`, `!=1.*.0`), not by version order.
  bool has_glob() const noexcept;
  // Some clause is a regular expression (`^1\.2.*$`).
  bool has_regex() const noexcept;

  // For a spec of exactly one clause (MatchSpec printing: `numpy==1.7`,
  // `numpy=1.7`): its operator; nullopt for `,`/`|` expressions.
  std::optional<VersionOperator> single_operator() const noexcept;
  // The clause's version for a single clause with a version operand (not any,
  // glob, not_glob or regex); nullptr otherwise.
  const Version* single_version() const noexcept;
  // The version of a single `==1.2` / bare `1.2` clause.
  std::optional<Version> exact_version() const;
  // The prefix of a single `1.2.*` / `1.2*` / `=1.2` clause (1.2).
  std::optional<Version> prefix_version() const;

  // Semantic equality: the same expression tree with equal operators and equal
  // versions (so `1.7.1*` == `1.7.1.*`, `==1.5` == `1.5`, `>=1.0` == `>=1.0.0`).
  // conda compares printed strings instead; these agree on every spec conda
  // prints faithfully.
  friend bool operator==(const VersionSpec& a, const VersionSpec& b) noexcept;
  std::size_t hash() const noexcept;

 private:
  class CompiledRegex;
  struct Clause {
    VersionOperator op = VersionOperator::any;
    Version version;        // operand of ordered, equality, prefix, compatible ops
    std::string pattern;    // glob pattern or regex source
    std::string conda_text; // the clause as conda prints it
    std::shared_ptr<const CompiledRegex> regex;
  };
  struct Node {
    enum class Kind : std::uint8_t { clause, all_of, any_of };
    Kind kind = Kind::clause;
    std::uint32_t subtree_size = 1;  // nodes in this subtree, this one included
    std::uint32_t clause = 0;        // index into clauses, for Kind::clause
  };
  friend class VersionSpecParser;
  friend class VersionSpecPrinter;

  static std::shared_ptr<const CompiledRegex> compile_regex(const std::string& source);
  static Clause any_clause();
  bool evaluate(std::size_t node, const Version& version) const;
  static bool clause_contains(const Clause& clause, const Version& version);
  static bool clause_equal(const Clause& a, const Clause& b) noexcept;

  // Prefix order: a group node is followed by its children's subtrees.
  std::vector<Node> nodes_;
  std::shared_ptr<const std::vector<Clause>> clauses_;
};

}  // namespace gpuenv::specs

template <>
struct std::hash<gpuenv::specs::VersionSpec> {
  std::size_t operator()(const gpuenv::specs::VersionSpec& spec) const noexcept {
    return spec.hash();
  }
};
