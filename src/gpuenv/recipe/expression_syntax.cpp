#include "gpuenv/recipe/expression_syntax.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <utility>

namespace gpuenv::recipe::detail {
namespace {

struct Token {
  enum class Type { name, integer, floating, string, symbol, end };
  Type type = Type::end;
  std::string text;  // name, symbol, or a string literal's unescaped value
  std::size_t begin = 0;
  std::size_t end = 0;
};

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Parser {
 public:
  Parser(std::string_view text, const ExpressionLimits& limits) : text_(text), limits_(limits) { advance(); }

  std::unique_ptr<SyntaxNode> parse_all() {
    if (token_.type == Token::Type::end) fail(token_.begin, "", "empty expression");
    auto node = expression();
    if (token_.type != Token::Type::end) fail(token_.begin, token_text(), "unexpected text after the expression");
    return node;
  }

 private:
  [[noreturn]] void fail(std::size_t at, std::string_view offending, std::string_view reason,
                         ExpressionError::Kind kind = ExpressionError::Kind::syntax) const {
    throw ExpressionError(kind, text_, at + 1, offending, reason);
  }
  std::string token_text() const { return std::string(text_.substr(token_.begin, token_.end - token_.begin)); }

  // ---- lexer ----
  void advance() {
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\t' ||
                                         text_[position_] == '\n' || text_[position_] == '\r')) {
      ++position_;
    }
    token_ = Token{};
    token_.begin = position_;
    if (position_ >= text_.size()) {
      token_.end = position_;
      return;
    }
    const char c = text_[position_];
    if (is_name_start(c)) {
      const std::size_t start = position_;
      while (position_ < text_.size() && (is_name_start(text_[position_]) || is_digit(text_[position_]))) ++position_;
      token_.type = Token::Type::name;
      token_.text = std::string(text_.substr(start, position_ - start));
    } else if (is_digit(c)) {
      lex_number();
    } else if (c == '\'' || c == '"') {
      lex_string(c);
    } else {
      static constexpr std::string_view two_char[] = {"==", "!=", "<=", ">=", "//", "**"};
      token_.type = Token::Type::symbol;
      for (const auto symbol : two_char) {
        if (text_.substr(position_, 2) == symbol) {
          token_.text = std::string(symbol);
          position_ += 2;
          token_.end = position_;
          return;
        }
      }
      if (std::string_view("+-*/%~|.,:()[]{}<>=").find(c) == std::string_view::npos) {
        fail(position_, text_.substr(position_, 1), "unexpected character");
      }
      token_.text = std::string(1, c);
      ++position_;
    }
    token_.end = position_;
  }

  void lex_number() {
    const std::size_t start = position_;
    bool floating = false;
    while (position_ < text_.size() && (is_digit(text_[position_]) || text_[position_] == '_')) ++position_;
    if (position_ + 1 < text_.size() && text_[position_] == '.' && is_digit(text_[position_ + 1])) {
      floating = true;
      ++position_;
      while (position_ < text_.size() && (is_digit(text_[position_]) || text_[position_] == '_')) ++position_;
    }
    if (position_ < text_.size() && (text_[position_] == 'e' || text_[position_] == 'E')) {
      std::size_t exponent = position_ + 1;
      if (exponent < text_.size() && (text_[exponent] == '+' || text_[exponent] == '-')) ++exponent;
      if (exponent < text_.size() && is_digit(text_[exponent])) {
        floating = true;
        position_ = exponent;
        while (position_ < text_.size() && is_digit(text_[position_])) ++position_;
      }
    }
    std::string digits;
    for (const char c : text_.substr(start, position_ - start)) {
      if (c != '_') digits += c;
    }
    token_.text = digits;
    token_.type = floating ? Token::Type::floating : Token::Type::integer;
  }

  void lex_string(char quote) {
    const std::size_t start = position_++;
    std::string value;
    while (true) {
      if (position_ >= text_.size()) fail(start, text_.substr(start), "unterminated string");
      const char c = text_[position_++];
      if (c == quote) break;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (position_ >= text_.size()) fail(start, text_.substr(start), "unterminated string");
      const char escaped = text_[position_++];
      switch (escaped) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case '\\': case '\'': case '"': case '/': value += escaped; break;
        default: fail(position_ - 2, text_.substr(position_ - 2, 2), "unknown escape in string");
      }
    }
    token_.type = Token::Type::string;
    token_.text = std::move(value);
  }

  bool at_symbol(std::string_view symbol) const {
    return token_.type == Token::Type::symbol && token_.text == symbol;
  }
  bool at_name(std::string_view name) const { return token_.type == Token::Type::name && token_.text == name; }
  void expect_symbol(std::string_view symbol) {
    if (!at_symbol(symbol)) {
      fail(token_.begin, token_.type == Token::Type::end ? std::string_view("end of expression") : token_text(),
           std::string("expected '") + std::string(symbol) + "', found");
    }
    advance();
  }

  // ---- parser ----
  // Every child joins its parent here, so that no tree grows taller than the
  // bound (left-associative chains like `1+1+...` nest without recursion in
  // the parser, but evaluating and destroying them recurses).
  void adopt(SyntaxNode& parent, std::unique_ptr<SyntaxNode> child) {
    if (child) {
      parent.height = std::max(parent.height, child->height + 1);
      if (parent.height > 4 * limits_.max_depth) {
        fail(child->begin, "", "expression nested too deeply", ExpressionError::Kind::limit);
      }
    }
    parent.children.push_back(std::move(child));
  }

  struct DepthGuard {
    explicit DepthGuard(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > parser_.limits_.max_depth) {
        parser_.fail(parser_.token_.begin, "", "expression nested too deeply", ExpressionError::Kind::limit);
      }
    }
    ~DepthGuard() { --parser_.depth_; }
    Parser& parser_;
  };

  std::unique_ptr<SyntaxNode> make(SyntaxNode::Type type, std::size_t begin, std::string text = {}) {
    auto node = std::make_unique<SyntaxNode>();
    node->type = type;
    node->begin = begin;
    node->end = token_.begin;
    node->text = std::move(text);
    return node;
  }
  std::unique_ptr<SyntaxNode> combine(SyntaxNode::Type type, std::unique_ptr<SyntaxNode> left,
                                      std::unique_ptr<SyntaxNode> right, std::string op = {}) {
    auto node = make(type, left->begin, std::move(op));
    node->end = right->end;
    adopt(*node, std::move(left));
    adopt(*node, std::move(right));
    return node;
  }

  std::unique_ptr<SyntaxNode> expression() {
    DepthGuard guard(*this);
    auto value = or_expression();
    if (!at_name("if")) return value;
    advance();
    auto condition = or_expression();
    auto node = make(SyntaxNode::Type::conditional, value->begin);
    adopt(*node, std::move(value));
    adopt(*node, std::move(condition));
    if (at_name("else")) {
      advance();
      adopt(*node, expression());
    }
    node->end = node->children.back()->end;
    return node;
  }

  std::unique_ptr<SyntaxNode> or_expression() {
    auto left = and_expression();
    while (at_name("or")) {
      advance();
      left = combine(SyntaxNode::Type::logical_or, std::move(left), and_expression());
    }
    return left;
  }
  std::unique_ptr<SyntaxNode> and_expression() {
    auto left = not_expression();
    while (at_name("and")) {
      advance();
      left = combine(SyntaxNode::Type::logical_and, std::move(left), not_expression());
    }
    return left;
  }
  std::unique_ptr<SyntaxNode> not_expression() {
    if (!at_name("not")) return comparison();
    DepthGuard guard(*this);
    const std::size_t begin = token_.begin;
    advance();
    auto node = make(SyntaxNode::Type::logical_not, begin);
    adopt(*node, not_expression());
    node->end = node->children.back()->end;
    return node;
  }
  std::unique_ptr<SyntaxNode> comparison() {
    auto first = sum();
    std::unique_ptr<SyntaxNode> node;
    while (true) {
      std::string op;
      if (token_.type == Token::Type::symbol &&
          (token_.text == "==" || token_.text == "!=" || token_.text == "<" || token_.text == "<=" ||
           token_.text == ">" || token_.text == ">=")) {
        op = token_.text;
        advance();
      } else if (at_name("in")) {
        op = "in";
        advance();
      } else if (at_name("not")) {
        const std::size_t at = token_.begin;
        advance();
        if (!at_name("in")) fail(at, "not", "expected 'in' after");
        op = "not in";
        advance();
      } else {
        break;
      }
      if (!node) {
        node = make(SyntaxNode::Type::comparison, first->begin);
        adopt(*node, std::move(first));
      }
      node->operators.push_back(op);
      adopt(*node, sum());
      node->end = node->children.back()->end;
    }
    return node ? std::move(node) : std::move(first);
  }
  std::unique_ptr<SyntaxNode> sum() {
    auto left = concatenation();
    while (at_symbol("+") || at_symbol("-")) {
      std::string op = token_.text;
      advance();
      left = combine(SyntaxNode::Type::binary, std::move(left), concatenation(), op);
    }
    return left;
  }
  std::unique_ptr<SyntaxNode> concatenation() {
    auto left = product();
    while (at_symbol("~")) {
      advance();
      left = combine(SyntaxNode::Type::binary, std::move(left), product(), "~");
    }
    return left;
  }
  std::unique_ptr<SyntaxNode> product() {
    auto left = power();
    while (at_symbol("*") || at_symbol("/") || at_symbol("//") || at_symbol("%")) {
      std::string op = token_.text;
      advance();
      left = combine(SyntaxNode::Type::binary, std::move(left), power(), op);
    }
    return left;
  }
  std::unique_ptr<SyntaxNode> power() {
    auto left = unary();
    while (at_symbol("**")) {
      advance();
      left = combine(SyntaxNode::Type::binary, std::move(left), unary(), "**");
    }
    return left;
  }
  std::unique_ptr<SyntaxNode> unary() {
    if (at_symbol("-") || at_symbol("+")) {
      DepthGuard guard(*this);
      const std::size_t begin = token_.begin;
      std::string op = token_.text;
      advance();
      auto node = make(SyntaxNode::Type::unary, begin, op);
      adopt(*node, unary_operand());
      node->end = node->children.back()->end;
      return filters(std::move(node));
    }
    return filters(postfix());
  }
  // The operand of a sign: another sign or a postfix expression, without filters
  // (`-x|abs` filters the negated value).
  std::unique_ptr<SyntaxNode> unary_operand() {
    if (at_symbol("-") || at_symbol("+")) {
      DepthGuard guard(*this);
      const std::size_t begin = token_.begin;
      std::string op = token_.text;
      advance();
      auto node = make(SyntaxNode::Type::unary, begin, op);
      adopt(*node, unary_operand());
      node->end = node->children.back()->end;
      return node;
    }
    return postfix();
  }
  std::unique_ptr<SyntaxNode> filters(std::unique_ptr<SyntaxNode> operand) {
    while (at_symbol("|") || at_name("is")) {
      const bool is_test = at_name("is");
      advance();
      bool negated = false;
      if (is_test && at_name("not")) {
        negated = true;
        advance();
      }
      if (token_.type != Token::Type::name) {
        fail(token_.begin, token_text(), is_test ? "expected a test name, found" : "expected a filter name, found");
      }
      const auto type = !is_test ? SyntaxNode::Type::filter
                                 : (negated ? SyntaxNode::Type::negative_test : SyntaxNode::Type::test);
      auto node = make(type, operand->begin, token_.text);
      advance();
      adopt(*node, std::move(operand));
      node->keywords.emplace_back();
      if (at_symbol("(")) arguments(*node);
      node->end = token_.begin;
      operand = std::move(node);
    }
    return operand;
  }
  // "(" argument, ... ")" appended to node's children and keywords.
  void arguments(SyntaxNode& node) {
    DepthGuard guard(*this);
    expect_symbol("(");
    while (!at_symbol(")")) {
      std::string keyword;
      if (token_.type == Token::Type::name && text_.substr(token_.end, 1) == "=" &&
          text_.substr(token_.end, 2) != "==") {
        keyword = token_.text;
        advance();
        expect_symbol("=");
      }
      adopt(node, expression());
      node.keywords.push_back(std::move(keyword));
      if (!at_symbol(",")) break;
      advance();
    }
    expect_symbol(")");
  }
  std::unique_ptr<SyntaxNode> postfix() {
    auto node = primary();
    while (true) {
      if (at_symbol(".")) {
        advance();
        if (token_.type != Token::Type::name && token_.type != Token::Type::integer) {
          fail(token_.begin, token_text(), "expected an attribute name after '.', found");
        }
        auto access = make(SyntaxNode::Type::attribute, node->begin, token_.text);
        advance();
        access->end = token_.begin;
        adopt(*access, std::move(node));
        node = std::move(access);
      } else if (at_symbol("[")) {
        DepthGuard guard(*this);
        advance();
        node = subscript(std::move(node));
      } else if (at_symbol("(")) {
        auto call = make(SyntaxNode::Type::call, node->begin);
        adopt(*call, std::move(node));
        call->keywords.emplace_back();
        arguments(*call);
        call->end = token_.begin;
        node = std::move(call);
      } else {
        return node;
      }
    }
  }
  std::unique_ptr<SyntaxNode> subscript(std::unique_ptr<SyntaxNode> operand) {
    const std::size_t begin = operand->begin;
    std::unique_ptr<SyntaxNode> bounds[3];
    if (!at_symbol(":")) bounds[0] = expression();
    if (!at_symbol(":")) {
      expect_symbol("]");
      auto node = make(SyntaxNode::Type::index, begin);
      adopt(*node, std::move(operand));
      adopt(*node, std::move(bounds[0]));
      return node;
    }
    advance();
    if (!at_symbol(":") && !at_symbol("]")) bounds[1] = expression();
    if (at_symbol(":")) {
      advance();
      if (!at_symbol("]")) bounds[2] = expression();
    }
    expect_symbol("]");
    auto node = make(SyntaxNode::Type::slice, begin);
    adopt(*node, std::move(operand));
    for (auto& bound : bounds) adopt(*node, std::move(bound));
    return node;
  }
  std::unique_ptr<SyntaxNode> primary() {
    DepthGuard guard(*this);
    const std::size_t begin = token_.begin;
    switch (token_.type) {
      case Token::Type::end: fail(begin, "", "unexpected end of expression");
      case Token::Type::string: {
        std::string value;
        while (token_.type == Token::Type::string) {
          value += token_.text;
          if (value.size() > limits_.max_output_bytes) fail(begin, "", "string too long", ExpressionError::Kind::limit);
          advance();
        }
        auto node = make(SyntaxNode::Type::literal, begin);
        node->literal = Value::string(std::move(value));
        return node;
      }
      case Token::Type::integer: {
        std::int64_t value = 0;
        const auto& digits = token_.text;
        const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (result.ec != std::errc() || result.ptr != digits.data() + digits.size()) {
          fail(begin, token_text(), "integer literal out of range", ExpressionError::Kind::limit);
        }
        advance();
        auto node = make(SyntaxNode::Type::literal, begin);
        node->literal = Value::integer(value);
        return node;
      }
      case Token::Type::floating: {
        const double value = std::strtod(token_.text.c_str(), nullptr);
        advance();
        auto node = make(SyntaxNode::Type::literal, begin);
        node->literal = Value::floating(value);
        return node;
      }
      case Token::Type::name: return name_or_constant();
      case Token::Type::symbol: break;
    }
    if (at_symbol("[")) return sequence("[", "]", SyntaxNode::Type::list);
    if (at_symbol("{")) return sequence("{", "}", SyntaxNode::Type::map);
    if (at_symbol("(")) {
      advance();
      if (at_symbol(")")) fail(token_.begin, ")", "empty parentheses");
      auto first = expression();
      if (at_symbol(")")) {
        advance();
        return first;
      }
      // A tuple: minijinja prints it as a list.
      auto node = make(SyntaxNode::Type::list, begin);
      adopt(*node, std::move(first));
      while (at_symbol(",")) {
        advance();
        if (at_symbol(")")) break;
        adopt(*node, expression());
      }
      expect_symbol(")");
      node->end = token_.begin;
      return node;
    }
    fail(begin, token_text(), "unexpected");
  }
  std::unique_ptr<SyntaxNode> name_or_constant() {
    const std::size_t begin = token_.begin;
    const std::string name = token_.text;
    advance();
    auto node = make(SyntaxNode::Type::literal, begin);
    if (name == "true" || name == "True") {
      node->literal = Value::boolean(true);
    } else if (name == "false" || name == "False") {
      node->literal = Value::boolean(false);
    } else if (name == "none" || name == "None") {
      node->literal = Value::none();
    } else {
      node->type = SyntaxNode::Type::name;
      node->text = name;
    }
    return node;
  }
  std::unique_ptr<SyntaxNode> sequence(std::string_view open, std::string_view close, SyntaxNode::Type type) {
    auto node = make(type, token_.begin);
    expect_symbol(open);
    while (!at_symbol(close)) {
      adopt(*node, expression());
      if (type == SyntaxNode::Type::map) {
        expect_symbol(":");
        adopt(*node, expression());
      }
      if (node->children.size() > limits_.max_output_items) {
        fail(node->begin, "", "literal has too many items", ExpressionError::Kind::limit);
      }
      if (!at_symbol(",")) break;
      advance();
    }
    expect_symbol(close);
    node->end = token_.begin;
    return node;
  }

  std::string_view text_;
  const ExpressionLimits& limits_;
  std::size_t position_ = 0;
  std::size_t depth_ = 0;
  Token token_;
};

}  // namespace

std::unique_ptr<SyntaxNode> parse_expression(std::string_view text, const ExpressionLimits& limits) {
  if (text.size() > limits.max_expression_bytes) {
    throw ExpressionError(ExpressionError::Kind::limit, text.substr(0, 80), 0, "",
                          "expression longer than " + std::to_string(limits.max_expression_bytes) + " bytes");
  }
  Parser parser(text, limits);
  return parser.parse_all();
}

std::vector<std::string_view> template_expressions(std::string_view text) {
  std::vector<std::string_view> expressions;
  for (auto open = text.find("${{"); open != std::string_view::npos; open = text.find("${{", open)) {
    const auto close = text.find("}}", open + 3);
    if (close == std::string_view::npos) break;
    expressions.push_back(text.substr(open + 3, close - open - 3));
    open = close + 2;
  }
  return expressions;
}

static void collect_toolchain_calls(const SyntaxNode& node, std::vector<ToolchainCallSyntax>& into) {
  if (node.type == SyntaxNode::Type::call && node.children[0]->type == SyntaxNode::Type::name) {
    const std::string& function = node.children[0]->text;
    const bool literal_argument = node.children.size() > 1 && node.children[1]->type == SyntaxNode::Type::literal &&
                                  node.children[1]->literal.kind() == Value::Kind::string;
    if ((function == "compiler" || function == "stdlib") && literal_argument &&
        !node.children[1]->literal.as_string().empty()) {
      into.push_back({function, node.children[1]->literal.as_string()});
    }
  }
  for (const auto& child : node.children) {
    if (child) collect_toolchain_calls(*child, into);
  }
}

std::vector<ToolchainCallSyntax> toolchain_calls(const SyntaxNode& node) {
  std::vector<ToolchainCallSyntax> calls;
  collect_toolchain_calls(node, calls);
  return calls;
}

}  // namespace gpuenv::recipe::detail
