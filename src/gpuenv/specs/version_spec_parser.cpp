// Reading version spec text into VersionSpec's flat expression tree.
#include <algorithm>
#include <array>
#include <regex>
#include <utility>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/spec_parsing.hpp"
#include "gpuenv/specs/version_spec.hpp"

namespace gpuenv::specs {

namespace {

constexpr std::string_view kind_name = "version spec";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_operator_char(char c) { return c == '=' || c == '<' || c == '>' || c == '!' || c == '~'; }
bool is_group_char(char c) { return c == '(' || c == ')' || c == ',' || c == '|'; }

// Characters a glob may hold: version characters, '-' and '*'. conda turns a
// glob into a regex escaping only '.' and '+', so anything else would be a
// regex metacharacter there; gpuenv refuses those rather than guess.
bool is_glob_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
         c == '_' || c == '-' || c == '+' || c == '!' || c == '*';
}

// `*` or `.*` repeated (`.*.*`): a glob suffix rattler's lenient mode drops.
bool is_star_or_star_dot_stars(std::string_view s) {
  if (s == "*") return true;
  while (s.ends_with(".*")) s.remove_suffix(2);
  return s.empty();
}

// `.*.*` (optionally with one trailing `.`): the `mkl 2023.*.*` and
// `openblas 0.2.18.*.` shapes found in real repodata.
bool looks_like_repeated_star_suffix(std::string_view s) {
  if (s.ends_with('.')) s.remove_suffix(1);
  if (s.empty()) return false;
  while (s.ends_with(".*")) s.remove_suffix(2);
  return s.empty();
}

struct OperatorSpelling {
  std::string_view text;
  VersionOperator op;
};
// Longest first, so that `<=` is not read as `<` followed by `=1.2`.
constexpr std::array<OperatorSpelling, 8> operator_spellings{{
    {"==", VersionOperator::equal},
    {"!=", VersionOperator::not_equal},
    {"<=", VersionOperator::less_equal},
    {">=", VersionOperator::greater_equal},
    {"~=", VersionOperator::compatible},
    {"=", VersionOperator::starts_with},
    {"<", VersionOperator::less},
    {">", VersionOperator::greater},
}};

}  // namespace

class VersionSpecParser {
 public:
  using Clause = VersionSpec::Clause;
  using Node = VersionSpec::Node;

  VersionSpecParser(std::string_view input, ParseMode mode) : input_(input), mode_(mode) {}

  detail::Parsed<VersionSpec> parse() {
    if (auto failed = tokenize()) return std::move(*failed);
    if (tokens_.size() == 1) return VersionSpec();  // only the end token: empty text
    TreeNode root;
    if (auto failed = parse_any_of(root)) return std::move(*failed);
    if (peek().kind != Token::Kind::end) {
      const Token& token = peek();
      if (token.kind == Token::Kind::close) return failure("unbalanced ')'", token.begin);
      return failure("expected ',' or '|' before '" + token_text(token) + "'", token.begin);
    }
    // Built in place in the result: no move of the finished spec.
    detail::Parsed<VersionSpec> parsed = VersionSpec();
    VersionSpec& spec = *parsed;
    spec.nodes_.clear();
    flatten(root, spec.nodes_);
    spec.clauses_ = std::make_shared<const std::vector<Clause>>(std::move(clauses_));
    return parsed;
  }

 private:
  struct Token {
    enum class Kind : std::uint8_t { clause, regex, all_of, any_of, open, close, end };
    Kind kind;
    std::size_t begin;  // offset in input_
    std::size_t end;
    std::string text;   // clause: spaces removed; regex: verbatim
  };
  struct TreeNode {
    Node::Kind kind = Node::Kind::clause;
    std::uint32_t clause = 0;
    std::vector<TreeNode> children;
  };

  SpecError failure(std::string reason, std::size_t offset) const {
    return SpecError(kind_name, input_, reason, offset + 1);
  }

  std::string token_text(const Token& token) const {
    return std::string(input_.substr(token.begin, token.end - token.begin));
  }

  // Offset in input_ of character `index` of a clause token's space-free text.
  std::size_t offset_in_clause(const Token& token, std::size_t index) const {
    std::size_t offset = token.begin;
    for (std::size_t seen = 0; offset < token.end; ++offset) {
      if (is_space(input_[offset])) continue;
      if (seen++ == index) return offset;
    }
    return token.end > token.begin ? token.end - 1 : token.begin;
  }

  // conda's VSPEC_TOKENS: a regex (`^...$`, which may contain `|`, `(`...),
  // one of `(`, `)`, `,`, `|`, or a clause running up to the next of those.
  // Spaces around clauses and between an operator and its version are
  // ignored (CEP 29; libmamba's `>= 1.7`). A space inside a version is an
  // error rather than silently joining `1.2 3` into `1.23`.
  detail::Failure tokenize() {
    std::size_t pos = 0;
    while (true) {
      while (pos < input_.size() && is_space(input_[pos])) ++pos;
      if (pos >= input_.size()) break;
      const char c = input_[pos];
      if (is_group_char(c)) {
        const auto kind = c == '(' ? Token::Kind::open
                          : c == ')' ? Token::Kind::close
                          : c == ',' ? Token::Kind::all_of
                                     : Token::Kind::any_of;
        tokens_.push_back({kind, pos, pos + 1, {}});
        ++pos;
        continue;
      }
      if (c == '^') {
        if (const auto dollar = input_.find('$', pos); dollar != std::string_view::npos) {
          tokens_.push_back({Token::Kind::regex, pos, dollar + 1,
                             std::string(input_.substr(pos, dollar + 1 - pos))});
          pos = dollar + 1;
          continue;
        }
      }
      Token token{Token::Kind::clause, pos, pos, {}};
      while (pos < input_.size() && !is_group_char(input_[pos])) ++pos;
      token.end = pos;
      while (token.end > token.begin && is_space(input_[token.end - 1])) --token.end;
      std::size_t i = token.begin;
      while (i < token.end && is_operator_char(input_[i])) token.text.push_back(input_[i++]);
      while (i < token.end && is_space(input_[i])) ++i;
      for (; i < token.end; ++i) {
        if (is_space(input_[i])) return failure("unexpected space inside a version", i);
        token.text.push_back(input_[i]);
      }
      tokens_.push_back(std::move(token));
    }
    tokens_.push_back({Token::Kind::end, input_.size(), input_.size(), {}});
    return std::nullopt;
  }

  const Token& peek() const { return tokens_[next_]; }

  // any_of := all_of ('|' all_of)* ; all_of := primary (',' primary)*.
  // `,` binds tighter than `|` as in conda; equal operators nest flat, as
  // conda's treeify fuses them.
  // Each fills `node` and returns the failure, if any (no TreeNode moves on
  // the way back up).
  detail::Failure parse_any_of(TreeNode& node) {
    if (auto failed = parse_all_of(node)) return failed;
    while (peek().kind == Token::Kind::any_of) {
      ++next_;
      TreeNode right;
      if (auto failed = parse_all_of(right)) return failed;
      node = join(Node::Kind::any_of, std::move(node), std::move(right));
    }
    return std::nullopt;
  }

  detail::Failure parse_all_of(TreeNode& node) {
    if (auto failed = parse_primary(node)) return failed;
    while (peek().kind == Token::Kind::all_of) {
      ++next_;
      TreeNode right;
      if (auto failed = parse_primary(right)) return failed;
      node = join(Node::Kind::all_of, std::move(node), std::move(right));
    }
    return std::nullopt;
  }

  detail::Failure parse_primary(TreeNode& node) {
    const Token& token = tokens_[next_];
    switch (token.kind) {
      case Token::Kind::open: {
        ++next_;
        // Recursion is bounded so hostile text cannot exhaust the stack.
        if (++depth_ > max_depth) return failure("parentheses nested too deeply", token.begin);
        if (auto failed = parse_any_of(node)) return failed;
        --depth_;
        if (peek().kind != Token::Kind::close) {
          if (peek().kind == Token::Kind::end) return failure("missing ')' for this '('", token.begin);
          return failure("expected ')' before '" + token_text(peek()) + "'", peek().begin);
        }
        ++next_;
        return std::nullopt;
      }
      case Token::Kind::clause:
      case Token::Kind::regex: {
        ++next_;
        // The clause functions fill the clause where it is kept: no moves.
        Clause& clause = clauses_.emplace_back();
        auto failed = token.kind == Token::Kind::regex ? regex_clause(token, clause)
                                                       : parse_clause(token, clause);
        if (failed) return failed;
        node = TreeNode{Node::Kind::clause, static_cast<std::uint32_t>(clauses_.size() - 1), {}};
        return std::nullopt;
      }
      case Token::Kind::end:
        return failure("empty clause at the end", input_.empty() ? 0 : input_.size() - 1);
      default:
        return failure("empty clause", token.begin);
    }
  }

  static TreeNode join(Node::Kind kind, TreeNode left, TreeNode right) {
    TreeNode joined{kind, 0, {}};
    for (TreeNode* side : {&left, &right}) {
      if (side->kind == kind) {
        std::move(side->children.begin(), side->children.end(), std::back_inserter(joined.children));
      } else {
        joined.children.push_back(std::move(*side));
      }
    }
    return joined;
  }

  static std::uint32_t flatten(const TreeNode& node, std::vector<Node>& out) {
    const std::size_t index = out.size();
    out.push_back(Node{node.kind, 1, node.clause});
    std::uint32_t size = 1;
    for (const TreeNode& child : node.children) size += flatten(child, out);
    out[index].subtree_size = size;
    return size;
  }

  // std::regex (libstdc++) overflows integers on huge back-reference and
  // repetition numbers, and backtracks exponentially; CEP 29 says
  // back-references and lookaround SHOULD NOT be allowed. Refuse those, so a
  // hostile spec in repodata can neither crash nor hang gpuenv (matching runs
  // in libstdc++'s polynomial mode, see version_spec.cpp).
  static detail::Failure any(Clause& clause) {
    clause = VersionSpec::any_clause();
    return std::nullopt;
  }

  detail::Failure check_regex_is_simple(const Token& token) const {
    const std::string& text = token.text;
    constexpr std::size_t max_regex_length = 256;
    if (text.size() > max_regex_length) return failure("regular expression longer than 256 characters", token.begin);
    // Whatever libstdc++ takes for an escape (`\c` swallows the next character),
    // no number it reads may overflow: refuse any run of more than 18 digits.
    std::size_t digit_run = 0;
    for (const char c : text) {
      digit_run = (c >= '0' && c <= '9') ? digit_run + 1 : 0;
      if (digit_run > 18) return failure("number too long in a regular expression", token.begin);
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
      const std::size_t at = token.begin + i;
      if (text[i] == '\\' && i + 1 < text.size()) {
        if (text[i + 1] >= '0' && text[i + 1] <= '9') return failure("back-references are not supported", at);
        ++i;
      } else if (text.compare(i, 2, "(?") == 0 && i + 2 < text.size() && text[i + 2] != ':') {
        return failure("lookaround is not supported in a regular expression", at);
      } else if (text[i] == '{') {
        std::size_t digits = 0;
        for (std::size_t j = i + 1; j < text.size() && text[j] != '}'; ++j) {
          digits = (text[j] >= '0' && text[j] <= '9') ? digits + 1 : 0;
          if (digits > 2) return failure("repetition count above 99 in a regular expression", at);
        }
      }
    }
    return std::nullopt;
  }

  detail::Failure regex_clause(const Token& token, Clause& clause) const {
    if (mode_ != ParseMode::conda) return failure("regex constraints are not supported", token.begin);
    if (auto failed = check_regex_is_simple(token)) return failed;
    clause.op = VersionOperator::regex;
    clause.pattern = token.text;
    clause.conda_text = token.text;
    try {
      clause.regex = VersionSpec::compile_regex(token.text);
    } catch (const std::regex_error& error) {
      return failure(std::string("invalid regular expression (") + error.what() + ")", token.begin);
    }
    return std::nullopt;
  }

  detail::Failure parse_version(Version& out, const Token& token, std::size_t index,
                                std::string_view text) const {
    // The common case without building a failure (try_parse is the fast path).
    if (auto version = Version::try_parse(text)) {
      out = std::move(*version);
      return std::nullopt;
    }
    auto failed = detail::parse_version(text);
    if (failed) {  // only after an allocation failure above
      out = std::move(*failed);
      return std::nullopt;
    }
    const SpecError& error = failed.error();
    const std::size_t at = error.column() > 0 ? index + error.column() - 1 : index;
    return failure("invalid version '" + std::string(text) + "': " + error.reason(),
                   offset_in_clause(token, at));
  }

  detail::Failure make(Clause& clause, VersionOperator op, const Token& token, std::size_t index,
                       std::string_view version_text, std::string conda_text) const {
    if (auto failed = parse_version(clause.version, token, index, version_text)) return failed;
    clause.op = op;
    clause.conda_text = std::move(conda_text);
    return std::nullopt;
  }

  detail::Failure glob_clause(Clause& clause, VersionOperator op, const Token& token,
                              std::size_t index, std::string_view pattern) const {
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      if (!is_glob_char(pattern[i])) {
        return failure(std::string("invalid character '") + pattern[i] + "' in version glob",
             offset_in_clause(token, index + i));
      }
    }
    clause.op = op;
    clause.pattern = std::string(pattern);
    clause.conda_text = token.text;
    return std::nullopt;
  }

  detail::Failure parse_clause(const Token& token, Clause& clause) const {
    const std::string& text = token.text;
    if (text.front() == '^' || text.back() == '$') {
      if (mode_ != ParseMode::conda) return failure("regex constraints are not supported", token.begin);
      return failure("a regex must start with '^' and end with '$'", token.begin);
    }
    if (mode_ != ParseMode::conda) return parse_rattler_clause(token, clause);

    if (is_operator_char(text.front())) {
      // conda's version_relation_re: ^(=|==|!=|<=|>=|<|>|~=)(?![=<>!~])(\S+)$
      const auto spelling = std::find_if(operator_spellings.begin(), operator_spellings.end(),
                                         [&](const auto& s) { return text.starts_with(s.text); });
      const std::size_t op_length = spelling == operator_spellings.end() ? 0 : spelling->text.size();
      if (op_length == 0 || (op_length < text.size() && is_operator_char(text[op_length]))) {
        std::size_t end = 0;
        while (end < text.size() && is_operator_char(text[end])) ++end;
        return failure("invalid operator '" + text.substr(0, end) + "'", token.begin);
      }
      if (op_length == text.size()) {
        return failure("missing version after '" + text + "'", offset_in_clause(token, op_length - 1));
      }
      return parse_operator_clause(clause, token, spelling->op, op_length);
    }
    if (text == "*") return any(clause);
    const std::string_view without_stars = std::string_view(text).substr(0, text.find_last_not_of('*') + 1);
    if (without_stars.find('*') != std::string_view::npos) {
      return glob_clause(clause, VersionOperator::glob, token, 0, text);
    }
    if (text.back() == '*') {
      // conda prints `1.2*` as `1.2.*` and reads both as "starts with 1.2";
      // the prefix comes from the rewritten text, as in conda (`**` -> `*.*`
      // -> prefix `*`).
      std::string conda_text = text.ends_with(".*") ? text : text.substr(0, text.size() - 1) + ".*";
      std::string_view prefix = conda_text;
      while (prefix.ends_with('*')) prefix.remove_suffix(1);
      while (prefix.ends_with('.')) prefix.remove_suffix(1);
      return make(clause, VersionOperator::starts_with, token, 0, prefix, conda_text);
    }
    return make(clause, VersionOperator::equal, token, 0, text, text);
  }

  detail::Failure parse_operator_clause(Clause& clause, const Token& token, VersionOperator op,
                                        std::size_t op_length) const {
    const std::string& text = token.text;
    std::string_view operand = std::string_view(text).substr(op_length);
    const std::string_view without_stars = operand.substr(0, operand.find_last_not_of('*') + 1);
    // CEP 29 and libmamba read `=1.*.0` as a glob and `!=1.*.0` as its negation;
    // conda would compare against the literal version "1.*.0" (docs/spec-deviations.md).
    if ((op == VersionOperator::starts_with || op == VersionOperator::not_equal) &&
        without_stars.find('*') != std::string_view::npos) {
      return glob_clause(clause,
                         op == VersionOperator::starts_with ? VersionOperator::glob
                                                            : VersionOperator::not_glob,
                         token, op_length, operand);
    }
    if (operand.ends_with(".*")) {
      operand.remove_suffix(2);
      switch (op) {
        case VersionOperator::compatible:
          return failure("'~=' cannot be combined with '.*'", offset_in_clause(token, text.size() - 2));
        case VersionOperator::not_equal: op = VersionOperator::not_starts_with; break;
        // `==1.2.*` is `==1.2` in conda's and rattler's VersionSpec (conda
        // warns); conda's MatchSpec turns a lone `name==1.2.*` into `1.2.*`
        // before it gets here (docs/spec-deviations.md, issue 10).
        // `=1.2.*` is `=1.2`; conda drops a superfluous `.*` after <, <=, >, >=.
        default: break;
      }
    }
    return make(clause, op, token, op_length, operand, text);
  }

  // rattler's constraint grammar (lenient and strict), for recipes and
  // manifests written against rattler; see ParseMode.
  detail::Failure parse_rattler_clause(const Token& token, Clause& clause) const {
    const std::string& text = token.text;
    const bool strict = mode_ == ParseMode::strict;
    std::size_t op_length = 0;
    while (op_length < text.size() && is_operator_char(text[op_length])) ++op_length;
    std::optional<VersionOperator> op;
    if (op_length > 0) {
      const auto spelling = std::find_if(operator_spellings.begin(), operator_spellings.end(),
                                         [&](const auto& s) { return s.text.size() == op_length && text.starts_with(s.text); });
      if (spelling == operator_spellings.end()) {
        return failure("invalid operator '" + text.substr(0, op_length) + "'", token.begin);
      }
      op = spelling->op;
    }
    const std::string_view operand = std::string_view(text).substr(op_length);
    if (operand.empty()) return failure("missing version after '" + text + "'", offset_in_clause(token, op_length - 1));
    const auto clause_at = [&](VersionOperator clause_op, std::string_view version) {
      return canonical_clause(clause, clause_op, token, op_length, version);
    };

    if (!op && (operand == "*" || operand == "*.*")) {
      if (operand == "*.*" && strict) return failure("'*.*' is not a valid glob", token.begin);
      return any(clause);
    }
    if (op && operand == "*") {
      const bool means_any = *op == VersionOperator::greater_equal || *op == VersionOperator::less_equal ||
                             *op == VersionOperator::compatible || *op == VersionOperator::starts_with ||
                             *op == VersionOperator::equal;
      if (strict || !means_any) {
        return failure("'*' cannot be combined with '" + text.substr(0, op_length) + "'", token.begin);
      }
      return any(clause);
    }
    // Split `1.2.*` into the version `1.2` and the glob suffix `.*`.
    std::size_t version_length = operand.size();
    while (version_length > 1 && (operand[version_length - 1] == '.' || operand[version_length - 1] == '*')) {
      --version_length;
    }
    const std::string_view version = operand.substr(0, version_length);
    const std::string_view suffix = operand.substr(version_length);
    if (version.find('*') != std::string_view::npos) {
      return failure("glob patterns inside a version are not supported", offset_in_clause(token, op_length));
    }
    const bool star_suffix = suffix == "*" || suffix == ".*";
    if (suffix.empty()) {
      if (!op && strict) {
        return failure("missing operator for '" + text + "' (did you mean '==" + text + "' or '" + text + ".*'?)",
             token.begin);
      }
      return clause_at(op.value_or(VersionOperator::equal), version);
    }
    if (op && !strict && (*op == VersionOperator::greater || *op == VersionOperator::greater_equal) &&
        is_star_or_star_dot_stars(suffix)) {
      return clause_at(VersionOperator::greater_equal, version);
    }
    if (op && *op == VersionOperator::not_equal && star_suffix) {
      return clause_at(VersionOperator::not_starts_with, version);
    }
    if (op && !strict && is_star_or_star_dot_stars(suffix)) return clause_at(*op, version);
    if (op && star_suffix) {
      return failure("'*' cannot be combined with '" + text.substr(0, op_length) + "'", token.begin);
    }
    if (!op && star_suffix) return clause_at(VersionOperator::starts_with, version);
    if (!op && !strict && looks_like_repeated_star_suffix(suffix)) {
      return clause_at(VersionOperator::starts_with, version);
    }
    if (suffix.find('*') != std::string_view::npos) {
      return failure("glob patterns inside a version are not supported", offset_in_clause(token, op_length));
    }
    return failure("unexpected '" + std::string(suffix) + "' after the version",
         offset_in_clause(token, op_length + version_length));
  }

  // A clause whose conda-style text is rebuilt from its meaning (rattler modes
  // change the meaning of what was written, so the text is not kept).
  detail::Failure canonical_clause(Clause& clause, VersionOperator op, const Token& token,
                                   std::size_t index, std::string_view version_text) const {
    if (auto failed = make(clause, op, token, index, version_text, {})) return failed;
    const std::string v(version_text);
    switch (op) {
      case VersionOperator::equal: clause.conda_text = "==" + v; break;
      case VersionOperator::not_equal: clause.conda_text = "!=" + v; break;
      case VersionOperator::less: clause.conda_text = "<" + v; break;
      case VersionOperator::less_equal: clause.conda_text = "<=" + v; break;
      case VersionOperator::greater: clause.conda_text = ">" + v; break;
      case VersionOperator::greater_equal: clause.conda_text = ">=" + v; break;
      case VersionOperator::starts_with: clause.conda_text = v + ".*"; break;
      case VersionOperator::not_starts_with: clause.conda_text = "!=" + v + ".*"; break;
      case VersionOperator::compatible: clause.conda_text = "~=" + v; break;
      default: clause.conda_text = v; break;
    }
    return std::nullopt;
  }

  std::string_view input_;
  ParseMode mode_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  std::size_t depth_ = 0;
  static constexpr std::size_t max_depth = 64;
  std::vector<Clause> clauses_;
};

VersionSpec VersionSpec::parse(std::string_view text, ParseMode mode) {
  return VersionSpecParser(text, mode).parse().value_or_throw();
}

detail::Parsed<VersionSpec> detail::parse_version_spec(std::string_view text, ParseMode mode) {
  return VersionSpecParser(text, mode).parse();
}

}  // namespace gpuenv::specs
