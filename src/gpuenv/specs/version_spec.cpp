// VersionSpec evaluation, printing, equality. Parsing is in version_spec_parser.cpp.
#include "gpuenv/specs/version_spec.hpp"

#include <regex>

#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::specs {

// Kept out of the header so that <regex> is only compiled here.
class VersionSpec::CompiledRegex {
 public:
  explicit CompiledRegex(const std::string& source) : regex(source, flags) {}
  // libstdc++'s __polynomial makes matching a breadth-first automaton walk:
  // polynomial time and a recursion depth bounded by the pattern, not by the
  // text, so no spec can hang or overflow the stack (it refuses back-references,
  // which the parser already rejects).
  static constexpr auto flags = std::regex::ECMAScript | std::regex::icase |
                                std::regex::optimize | std::regex_constants::__polynomial;
  std::regex regex;
};

namespace {

char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// conda turns `1.*.0` into the regex ^(?:1\..*\.0)$ and matches it against the
// version text; with only '*' special, a wildcard match is the same test.
// Case-insensitive, as CEP 29 asks of string matching.
bool glob_matches(std::string_view pattern, std::string_view text) {
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (p < pattern.size() && to_lower(pattern[p]) == to_lower(text[t])) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::size_t mix(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}

std::string_view operator_text(VersionOperator op) {
  switch (op) {
    case VersionOperator::equal: return "==";
    case VersionOperator::not_equal: return "!=";
    case VersionOperator::less: return "<";
    case VersionOperator::less_equal: return "<=";
    case VersionOperator::greater: return ">";
    case VersionOperator::greater_equal: return ">=";
    case VersionOperator::starts_with: return "=";
    case VersionOperator::not_starts_with: return "!=";
    case VersionOperator::compatible: return "~=";
    case VersionOperator::not_glob: return "!=";
    default: return "";
  }
}

}  // namespace

std::shared_ptr<const VersionSpec::CompiledRegex> VersionSpec::compile_regex(const std::string& source) {
  return std::make_shared<const CompiledRegex>(source);
}

VersionSpec::Clause VersionSpec::any_clause() {
  Clause clause;
  clause.conda_text.assign(1, '*');  // not = "*": g++ 12 warns falsely (-Wrestrict)
  return clause;
}

VersionSpec::VersionSpec() : nodes_{Node{}} {
  // Every free spec shares one immutable clause list.
  static const auto free_clauses = std::make_shared<const std::vector<Clause>>(1, any_clause());
  clauses_ = free_clauses;
}

VersionSpec VersionSpec::from_operator(VersionOperator op, Version version) {
  if (op == VersionOperator::any || op == VersionOperator::glob || op == VersionOperator::not_glob ||
      op == VersionOperator::regex) {
    throw SpecError("version spec", version.str(), "this operator needs a pattern, not a version");
  }
  Clause clause;
  clause.op = op;
  const std::string text(version.original());
  if (op == VersionOperator::starts_with) {
    clause.conda_text = text + ".*";
  } else if (op == VersionOperator::not_starts_with) {
    clause.conda_text = "!=" + text + ".*";
  } else {
    clause.conda_text = std::string(operator_text(op)) + text;
  }
  clause.version = std::move(version);
  VersionSpec spec;
  spec.clauses_ = std::make_shared<const std::vector<Clause>>(1, std::move(clause));
  return spec;
}

bool VersionSpec::clause_contains(const Clause& clause, const Version& version) {
  switch (clause.op) {
    case VersionOperator::any: return true;
    case VersionOperator::equal: return version == clause.version;
    case VersionOperator::not_equal: return version != clause.version;
    case VersionOperator::less: return version < clause.version;
    case VersionOperator::less_equal: return version <= clause.version;
    case VersionOperator::greater: return version > clause.version;
    case VersionOperator::greater_equal: return version >= clause.version;
    case VersionOperator::starts_with: return version.starts_with(clause.version);
    case VersionOperator::not_starts_with: return !version.starts_with(clause.version);
    case VersionOperator::compatible: return version.compatible_with(clause.version);
    case VersionOperator::glob: return glob_matches(clause.pattern, version.original());
    case VersionOperator::not_glob: return !glob_matches(clause.pattern, version.original());
    case VersionOperator::regex: {
      const std::string_view text = version.original();
      return std::regex_search(text.begin(), text.end(), clause.regex->regex);
    }
  }
  return false;
}

bool VersionSpec::evaluate(std::size_t index, const Version& version) const {
  const Node& node = nodes_[index];
  if (node.kind == Node::Kind::clause) return clause_contains((*clauses_)[node.clause], version);
  const bool want_all = node.kind == Node::Kind::all_of;
  for (std::size_t child = index + 1; child < index + node.subtree_size;
       child += nodes_[child].subtree_size) {
    if (evaluate(child, version) != want_all) return !want_all;
  }
  return want_all;
}

bool VersionSpec::contains(const Version& version) const { return evaluate(0, version); }

// Printing in the four styles of SpecStyle.
class VersionSpecPrinter {
 public:
  VersionSpecPrinter(const VersionSpec& spec, SpecStyle style) : spec_(spec), style_(style) {}

  std::string print() {
    print_node(0, false);
    return out_;
  }

 private:
  using Node = VersionSpec::Node;

  void print_node(std::size_t index, bool inside_all_of) {
    const Node& node = spec_.nodes_[index];
    if (node.kind == Node::Kind::clause) {
      print_clause((*spec_.clauses_)[node.clause]);
      return;
    }
    const bool all_of = node.kind == Node::Kind::all_of;
    // conda joins the already-printed children, so an `|` group inside a `,`
    // loses its parentheses (conda's printed form does not read back the same;
    // that is conda's canonical form all the same).
    const bool parenthesize = !all_of && inside_all_of && style_ != SpecStyle::conda;
    if (parenthesize) out_.push_back('(');
    bool first = true;
    for (std::size_t child = index + 1; child < index + node.subtree_size;
         child += spec_.nodes_[child].subtree_size) {
      if (!first) out_.push_back(all_of ? ',' : '|');
      first = false;
      print_node(child, all_of);
    }
    if (parenthesize) out_.push_back(')');
  }

  void print_clause(const VersionSpec::Clause& clause) {
    if (style_ == SpecStyle::conda) {
      out_ += clause.conda_text;
      return;
    }
    const std::string& version = clause.version.str();
    switch (clause.op) {
      case VersionOperator::any: out_ += "*"; return;
      case VersionOperator::glob:
      case VersionOperator::regex: out_ += clause.pattern; return;
      case VersionOperator::not_glob: out_ += "!=" + clause.pattern; return;
      case VersionOperator::starts_with:
        out_ += style_ == SpecStyle::libmamba ? "=" + version : version + ".*";
        return;
      case VersionOperator::not_starts_with: out_ += "!=" + version + ".*"; return;
      default: out_ += std::string(operator_text(clause.op)) + version; return;
    }
  }

  const VersionSpec& spec_;
  SpecStyle style_;
  std::string out_;
};

std::string VersionSpec::str(SpecStyle style) const { return VersionSpecPrinter(*this, style).print(); }

bool VersionSpec::is_exact() const noexcept { return single_operator() == VersionOperator::equal; }

bool VersionSpec::is_explicitly_free() const noexcept {
  return single_operator() == VersionOperator::any;
}

bool VersionSpec::has_glob() const noexcept {
  for (const Clause& clause : *clauses_) {
    if (clause.op == VersionOperator::glob || clause.op == VersionOperator::not_glob) return true;
  }
  return false;
}

bool VersionSpec::has_regex() const noexcept {
  for (const Clause& clause : *clauses_) {
    if (clause.op == VersionOperator::regex) return true;
  }
  return false;
}

std::optional<VersionOperator> VersionSpec::single_operator() const noexcept {
  if (nodes_.size() != 1) return std::nullopt;
  return (*clauses_)[nodes_[0].clause].op;
}

const Version* VersionSpec::single_version() const noexcept {
  const auto op = single_operator();
  if (!op || *op == VersionOperator::any || *op == VersionOperator::glob ||
      *op == VersionOperator::not_glob || *op == VersionOperator::regex) {
    return nullptr;
  }
  return &(*clauses_)[nodes_[0].clause].version;
}

std::optional<Version> VersionSpec::exact_version() const {
  if (single_operator() != VersionOperator::equal) return std::nullopt;
  return *single_version();
}

std::optional<Version> VersionSpec::prefix_version() const {
  if (single_operator() != VersionOperator::starts_with) return std::nullopt;
  return *single_version();
}

bool VersionSpec::clause_equal(const Clause& a, const Clause& b) noexcept {
  if (a.op != b.op) return false;
  switch (a.op) {
    case VersionOperator::any: return true;
    case VersionOperator::glob:
    case VersionOperator::not_glob:
    case VersionOperator::regex: return a.pattern == b.pattern;
    default: return a.version == b.version;
  }
}

bool operator==(const VersionSpec& a, const VersionSpec& b) noexcept {
  if (a.nodes_.size() != b.nodes_.size()) return false;
  for (std::size_t i = 0; i < a.nodes_.size(); ++i) {
    const auto& x = a.nodes_[i];
    const auto& y = b.nodes_[i];
    if (x.kind != y.kind || x.subtree_size != y.subtree_size) return false;
    if (x.kind == VersionSpec::Node::Kind::clause &&
        !VersionSpec::clause_equal((*a.clauses_)[x.clause], (*b.clauses_)[y.clause])) {
      return false;
    }
  }
  return true;
}

std::size_t VersionSpec::hash() const noexcept {
  std::size_t seed = 0x5bec;
  for (const Node& node : nodes_) {
    seed = mix(seed, static_cast<std::size_t>(node.kind) * 0x10000 + node.subtree_size);
    if (node.kind != Node::Kind::clause) continue;
    const Clause& clause = (*clauses_)[node.clause];
    seed = mix(seed, static_cast<std::size_t>(clause.op));
    switch (clause.op) {
      case VersionOperator::any: break;
      case VersionOperator::glob:
      case VersionOperator::not_glob:
      case VersionOperator::regex: seed = mix(seed, std::hash<std::string>{}(clause.pattern)); break;
      default: seed = mix(seed, clause.version.hash()); break;
    }
  }
  return seed;
}

}  // namespace gpuenv::specs
