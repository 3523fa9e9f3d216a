#include "gpuenv/specs/condition.hpp"

#include <cstddef>
#include <optional>

#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::specs {
namespace {

// Conditions come from channels too: bound how deep parentheses may nest so
// that a hostile one cannot exhaust the stack.
constexpr int max_group_depth = 32;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// CEP 43's short form for a name and one version clause (`python>=3.10`),
// as rattler prints it, when it reads back to the same spec; anything else
// as MatchSpec::str() prints it.
std::string leaf_text(const MatchSpec& spec) {
  const std::string_view version = spec.version_text();
  const bool one_operator_clause = spec.has_version() && spec.name().is_exact() &&
                                   std::string_view("<>=!~").find(version.front()) != std::string_view::npos &&
                                   version.find_first_of(",| ") == std::string_view::npos;
  if (one_operator_clause) {
    std::string short_form = spec.name().str() + std::string(version);
    try {
      if (MatchSpec::parse(short_form) == spec) return short_form;
    } catch (const SpecError&) {
    }
  }
  return spec.str();
}

struct Token {
  enum class Kind : std::uint8_t { open, close, and_op, or_op, leaf, end } kind = Kind::end;
  std::string_view text;  // a view into the condition, for error columns
};

// Splits a condition into parentheses, `and`, `or` and leaves. A leaf is the
// text between operators (`python >=3.10` is one leaf, as rattler reads it);
// brackets and quotes inside a leaf protect what they hold.
class Tokenizer {
 public:
  Tokenizer(std::string_view text, const Condition::FailureReporter& fail) : text_(text), fail_(fail) {}

  Token next() {
    skip_spaces();
    if (at_ >= text_.size()) return {Token::Kind::end, text_.substr(text_.size())};
    const char c = text_[at_];
    if (c == '(' || c == ')') {
      return {c == '(' ? Token::Kind::open : Token::Kind::close, text_.substr(at_++, 1)};
    }
    const std::size_t leaf_start = at_;
    std::size_t leaf_end = at_;
    while (true) {
      skip_spaces();
      if (at_ >= text_.size() || text_[at_] == '(' || text_[at_] == ')') break;
      const std::size_t word_start = at_;
      const std::string_view word = read_word();
      if (word == "and" || word == "or") {
        if (leaf_end == leaf_start) return {word == "and" ? Token::Kind::and_op : Token::Kind::or_op, word};
        at_ = word_start;  // the operator is the next token
        break;
      }
      leaf_end = at_;
    }
    return {Token::Kind::leaf, text_.substr(leaf_start, leaf_end - leaf_start)};
  }

 private:
  void skip_spaces() {
    while (at_ < text_.size() && is_space(text_[at_])) ++at_;
  }

  std::string_view read_word() {
    const std::size_t start = at_;
    int brackets = 0;
    char quote = 0;
    for (; at_ < text_.size(); ++at_) {
      const char c = text_[at_];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '[') {
        ++brackets;
      } else if (c == ']') {
        --brackets;
      } else if (brackets <= 0 && (is_space(c) || c == '(' || c == ')')) {
        break;
      }
    }
    if (quote != 0) fail_("a quote is not closed", text_.substr(start));
    return text_.substr(start, at_ - start);
  }

  std::string_view text_;
  const Condition::FailureReporter& fail_;
  std::size_t at_ = 0;
};

class ConditionParser {
 public:
  ConditionParser(std::string_view text, const Condition::LeafParser& parse_leaf,
                  const Condition::FailureReporter& fail)
      : text_(text), tokens_(text, fail), parse_leaf_(parse_leaf), fail_(fail) {
    advance();
  }

  Condition parse() {
    if (current_.kind == Token::Kind::end) report("the condition is empty", text_);
    Condition condition = any_of(0);
    if (current_.kind != Token::Kind::end) report("unexpected '" + std::string(current_.text) + "'", current_.text);
    return condition;
  }

  // Built by Condition's friends below.
  static Condition group(Condition::Kind kind, std::vector<Condition> operands);
  static Condition leaf(MatchSpec spec);

 private:
  [[noreturn]] void report(const std::string& reason, std::string_view where) const {
    fail_(reason, where);
    throw SpecError("condition", text_, reason);  // a reporter that returned
  }

  void advance() { current_ = tokens_.next(); }

  Condition any_of(int depth) {
    std::vector<Condition> operands{all_of(depth)};
    while (current_.kind == Token::Kind::or_op) {
      advance();
      operands.push_back(all_of(depth));
    }
    return operands.size() == 1 ? std::move(operands.front())
                                : group(Condition::Kind::any_of, std::move(operands));
  }

  Condition all_of(int depth) {
    std::vector<Condition> operands{primary(depth)};
    while (current_.kind == Token::Kind::and_op) {
      advance();
      operands.push_back(primary(depth));
    }
    return operands.size() == 1 ? std::move(operands.front())
                                : group(Condition::Kind::all_of, std::move(operands));
  }

  Condition primary(int depth) {
    const Token token = current_;
    switch (token.kind) {
      case Token::Kind::open: {
        if (depth >= max_group_depth) report("parentheses are nested too deeply", token.text);
        advance();
        Condition inner = any_of(depth + 1);
        if (current_.kind != Token::Kind::close) report("a '(' is not closed", token.text);
        advance();
        return inner;
      }
      case Token::Kind::leaf: {
        advance();
        MatchSpec spec = parse_leaf_(token.text);
        if (!spec.when().empty()) report("a condition's match spec cannot have its own 'when'", token.text);
        return leaf(std::move(spec));
      }
      case Token::Kind::end:
        report("a match spec is missing at the end of the condition", token.text);
      default:
        report("expected a match spec or '(' but found '" + std::string(token.text) + "'", token.text);
    }
  }

  std::string_view text_;
  Tokenizer tokens_;
  const Condition::LeafParser& parse_leaf_;
  const Condition::FailureReporter& fail_;
  Token current_;
};

}  // namespace

// The one way to build a Condition from parts (ConditionParser's).
struct ConditionBuilder {
  static Condition make(Condition::Kind kind, MatchSpec spec, std::vector<Condition> operands);
};

Condition Condition::parse_with(std::string_view text, const LeafParser& parse_leaf, const FailureReporter& fail) {
  return ConditionParser(text, parse_leaf, fail).parse();
}

Condition Condition::parse(std::string_view text, ParseMode mode) {
  const std::string owned(text);  // errors name the whole text
  const FailureReporter fail = [&](std::string_view reason, std::string_view where) {
    const auto column = static_cast<std::size_t>(where.data() - text.data()) + 1;
    throw SpecError("condition", owned, reason, column <= text.size() + 1 ? column : 0);
  };
  const LeafParser parse_leaf = [&](std::string_view leaf) {
    try {
      return MatchSpec::parse(leaf, mode);
    } catch (const SpecError& error) {
      fail("'" + std::string(leaf) + "' is not a valid match spec: " + error.reason(), leaf);
      throw;
    }
  };
  return parse_with(text, parse_leaf, fail);
}

bool Condition::holds(const std::function<bool(const MatchSpec&)>& leaf_holds) const {
  switch (kind_) {
    case Kind::spec:
      return leaf_holds(spec_);
    case Kind::all_of:
      for (const auto& operand : operands_) {
        if (!operand.holds(leaf_holds)) return false;
      }
      return true;
    case Kind::any_of:
      for (const auto& operand : operands_) {
        if (operand.holds(leaf_holds)) return true;
      }
      return false;
  }
  return false;
}

void Condition::for_each_spec(const std::function<void(const MatchSpec&)>& visit) const {
  if (kind_ == Kind::spec) {
    visit(spec_);
    return;
  }
  for (const auto& operand : operands_) operand.for_each_spec(visit);
}

std::string Condition::str() const {
  if (kind_ == Kind::spec) return leaf_text(spec_);
  std::string out;
  const std::string_view separator = kind_ == Kind::all_of ? " and " : " or ";
  for (std::size_t i = 0; i < operands_.size(); ++i) {
    if (i > 0) out += separator;
    const auto& operand = operands_[i];
    // `or` inside `and` needs parentheses; `and` inside `or` binds tighter.
    const bool parenthesise = kind_ == Kind::all_of && operand.kind_ == Kind::any_of;
    out += parenthesise ? "(" + operand.str() + ")" : operand.str();
  }
  return out;
}

Condition ConditionParser::group(Condition::Kind kind, std::vector<Condition> operands) {
  // `a and (b and c)` is `a and b and c`: flattened, so that str() reads
  // back to an equal condition.
  std::vector<Condition> flat;
  for (auto& operand : operands) {
    if (operand.kind() == kind) {
      for (const auto& inner : operand.operands()) flat.push_back(inner);
    } else {
      flat.push_back(std::move(operand));
    }
  }
  operands = std::move(flat);
  return ConditionBuilder::make(kind, MatchSpec(), std::move(operands));
}

Condition ConditionParser::leaf(MatchSpec spec) {
  return ConditionBuilder::make(Condition::Kind::spec, std::move(spec), {});
}

Condition ConditionBuilder::make(Condition::Kind kind, MatchSpec spec, std::vector<Condition> operands) {
  Condition condition;
  condition.kind_ = kind;
  condition.spec_ = std::move(spec);
  condition.operands_ = std::move(operands);
  return condition;
}

}  // namespace gpuenv::specs
