#include "gpuenv/generator/pep508.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <map>

namespace gpuenv::generate {
namespace {

constexpr std::size_t max_requirement = 4096;

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool name_character(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

std::string without_spaces(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

// Dotted release numbers of a PEP 440 version ("3.10", "1.4.2rc1" -> 1,4,2);
// nullopt when it does not start with a number.
std::optional<std::vector<long>> release_numbers(std::string_view version) {
  std::vector<long> numbers;
  while (!version.empty()) {
    long number = 0;
    const auto [end, error] = std::from_chars(version.data(), version.data() + version.size(), number);
    if (error != std::errc()) break;
    numbers.push_back(number);
    version.remove_prefix(static_cast<std::size_t>(end - version.data()));
    if (version.size() < 2 || version.front() != '.' || !std::isdigit(static_cast<unsigned char>(version[1]))) break;
    version.remove_prefix(1);
  }
  if (numbers.empty()) return std::nullopt;
  return numbers;
}

int compare_releases(std::vector<long> left, std::vector<long> right) {
  const auto size = std::max(left.size(), right.size());
  left.resize(size, 0);
  right.resize(size, 0);
  return left < right ? -1 : left > right ? 1 : 0;
}

// --- markers -------------------------------------------------------------

struct Token {
  enum Kind { name, string, op, open, close, end } kind = end;
  std::string text;
};

std::expected<std::vector<Token>, std::string> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  std::size_t at = 0;
  while (at < text.size()) {
    const char c = text[at];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++at;
    } else if (c == '(' || c == ')') {
      tokens.push_back({c == '(' ? Token::open : Token::close, std::string(1, c)});
      ++at;
    } else if (c == '"' || c == '\'') {
      const auto close = text.find(c, at + 1);
      if (close == std::string_view::npos) return std::unexpected("an unterminated string in the marker");
      tokens.push_back({Token::string, std::string(text.substr(at + 1, close - at - 1))});
      at = close + 1;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      auto end = at;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' ||
                                   text[end] == '.')) {
        ++end;
      }
      tokens.push_back({Token::name, std::string(text.substr(at, end - at))});
      at = end;
    } else {
      static const std::vector<std::string> ops = {"===", "==", "!=", "<=", ">=", "~=", "<", ">"};
      const auto op = std::find_if(ops.begin(), ops.end(), [&](const auto& each) { return text.substr(at).starts_with(each); });
      if (op == ops.end()) return std::unexpected(std::string("an unexpected '") + c + "' in the marker");
      tokens.push_back({Token::op, *op});
      at += op->size();
    }
    if (tokens.size() > 256) return std::unexpected(std::string("a marker of more than 256 tokens"));
  }
  tokens.push_back({Token::end, ""});
  return tokens;
}

using Environment = std::map<std::string, std::string, std::less<>>;

class MarkerEvaluator {
 public:
  explicit MarkerEvaluator(const std::vector<Token>& tokens) : tokens_(tokens) {}

  // The marker's value in `environment`; an error for a malformed marker.
  std::expected<bool, std::string> evaluate(const Environment& environment) {
    environment_ = &environment;
    at_ = 0;
    depth_ = 0;
    auto value = disjunction();
    if (!value) return value;
    if (tokens_[at_].kind != Token::end) return std::unexpected("unexpected '" + tokens_[at_].text + "' in the marker");
    return value;
  }

 private:
  std::expected<bool, std::string> disjunction() {
    auto left = conjunction();
    while (left && tokens_[at_].kind == Token::name && tokens_[at_].text == "or") {
      ++at_;
      auto right = conjunction();
      if (!right) return right;
      left = *left || *right;
    }
    return left;
  }

  std::expected<bool, std::string> conjunction() {
    auto left = primary();
    while (left && tokens_[at_].kind == Token::name && tokens_[at_].text == "and") {
      ++at_;
      auto right = primary();
      if (!right) return right;
      left = *left && *right;
    }
    return left;
  }

  std::expected<bool, std::string> primary() {
    if (tokens_[at_].kind == Token::open) {
      if (++depth_ > 32) return std::unexpected(std::string("a marker nested more than 32 levels"));
      ++at_;
      auto value = disjunction();
      if (!value) return value;
      if (tokens_[at_].kind != Token::close) return std::unexpected(std::string("a '(' without its ')' in the marker"));
      ++at_;
      --depth_;
      return value;
    }
    auto left = operand();
    if (!left) return std::unexpected(left.error());
    std::string op;
    if (tokens_[at_].kind == Token::op) {
      op = tokens_[at_++].text;
    } else if (tokens_[at_].kind == Token::name && tokens_[at_].text == "in") {
      op = "in";
      ++at_;
    } else if (tokens_[at_].kind == Token::name && tokens_[at_].text == "not" &&
               tokens_[at_ + 1].kind == Token::name && tokens_[at_ + 1].text == "in") {
      op = "not in";
      at_ += 2;
    } else {
      return std::unexpected("a comparison after '" + left->text + "' in the marker");
    }
    auto right = operand();
    if (!right) return std::unexpected(right.error());
    return compare(*left, op, *right);
  }

  struct Operand {
    std::string text;  // the value
    bool version = false;  // a version-valued variable
  };

  std::expected<Operand, std::string> operand() {
    const auto& token = tokens_[at_];
    if (token.kind == Token::string) {
      ++at_;
      return Operand{token.text, false};
    }
    if (token.kind == Token::name) {
      const auto value = environment_->find(token.text);
      if (value == environment_->end()) return std::unexpected("an unknown marker variable '" + token.text + "'");
      ++at_;
      const bool version = token.text == "python_version" || token.text == "python_full_version" ||
                           token.text == "implementation_version" || token.text == "platform_release";
      return Operand{value->second, version};
    }
    return std::unexpected(std::string("a value missing in the marker"));
  }

  static bool compare(const Operand& left, const std::string& op, const Operand& right) {
    if (op == "in") return right.text.find(left.text) != std::string::npos;
    if (op == "not in") return right.text.find(left.text) == std::string::npos;
    const bool versions = left.version || right.version;
    const auto l = release_numbers(left.text);
    auto r_text = std::string_view(right.text);
    const bool wildcard = r_text.ends_with(".*");
    if (wildcard) r_text.remove_suffix(2);
    const auto r = release_numbers(r_text);
    if (versions && l && r && op != "===") {
      if (wildcard && (op == "==" || op == "!=")) {
        auto prefix = *l;
        prefix.resize(std::min(prefix.size(), r->size()));
        const bool same = compare_releases(prefix, *r) == 0 && l->size() >= r->size();
        return (op == "==") == same;
      }
      const int order = compare_releases(*l, *r);
      if (op == "==") return order == 0;
      if (op == "!=") return order != 0;
      if (op == "<") return order < 0;
      if (op == "<=") return order <= 0;
      if (op == ">") return order > 0;
      if (op == ">=") return order >= 0;
      if (op == "~=") {  // >= V and == V's prefix without its last number
        auto prefix = *r;
        if (prefix.size() > 1) prefix.pop_back();
        auto head = *l;
        head.resize(prefix.size(), 0);
        return order >= 0 && compare_releases(head, prefix) == 0;
      }
    }
    if (op == "==" || op == "===") return left.text == right.text;
    if (op == "!=") return left.text != right.text;
    if (op == "<") return left.text < right.text;
    if (op == "<=") return left.text <= right.text;
    if (op == ">") return left.text > right.text;
    if (op == ">=") return left.text >= right.text;
    return false;
  }

  const std::vector<Token>& tokens_;
  const Environment* environment_ = nullptr;
  std::size_t at_ = 0;
  int depth_ = 0;
};

Environment linux_cpython(int minor) {
  const auto python = "3." + std::to_string(minor);
  return {{"python_version", python},
          {"python_full_version", python + ".0"},
          {"implementation_version", python + ".0"},
          {"implementation_name", "cpython"},
          {"platform_python_implementation", "CPython"},
          {"os_name", "posix"},
          {"sys_platform", "linux"},
          {"platform_system", "Linux"},
          {"platform_machine", "x86_64"},
          {"platform_release", ""},
          {"platform_version", ""},
          {"extra", ""}};
}

}  // namespace

std::string normalize_python_name(std::string_view name) {
  std::string out;
  bool separator = false;
  for (const char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      separator = true;
      continue;
    }
    if (separator && !out.empty()) out += '-';
    separator = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::expected<Pep508Requirement, std::string> parse_pep508(std::string_view text) {
  if (text.size() > max_requirement) return std::unexpected(std::string("a requirement longer than 4 KiB"));
  Pep508Requirement requirement;
  auto rest = trim(text);
  const auto semicolon = rest.find(';');
  if (semicolon != std::string_view::npos) {
    requirement.marker = std::string(trim(rest.substr(semicolon + 1)));
    rest = trim(rest.substr(0, semicolon));
  }
  std::size_t at = 0;
  while (at < rest.size() && name_character(rest[at])) ++at;
  if (at == 0 || !std::isalnum(static_cast<unsigned char>(rest[0]))) {
    return std::unexpected("'" + std::string(text) + "' does not start with a package name");
  }
  requirement.name = std::string(rest.substr(0, at));
  rest = trim(rest.substr(at));
  if (rest.starts_with('[')) {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return std::unexpected("'" + std::string(text) + "': an extras list without ']'");
    auto extras = rest.substr(1, close - 1);
    while (!extras.empty()) {
      const auto comma = extras.find(',');
      const auto extra = trim(extras.substr(0, comma));
      if (!extra.empty()) requirement.extras.emplace_back(extra);
      if (comma == std::string_view::npos) break;
      extras.remove_prefix(comma + 1);
    }
    rest = trim(rest.substr(close + 1));
  }
  if (rest.starts_with('@')) {
    requirement.url = std::string(trim(rest.substr(1)));
    return requirement;
  }
  if (rest.starts_with('(')) {
    if (!rest.ends_with(')')) return std::unexpected("'" + std::string(text) + "': a '(' without its ')'");
    rest = trim(rest.substr(1, rest.size() - 2));
  }
  for (const char c : rest) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("<>=!~.,*+ \t-_").find(c) == std::string_view::npos) {
      return std::unexpected("'" + std::string(text) + "': '" + std::string(1, c) + "' in its version specifiers");
    }
  }
  requirement.specifiers = without_spaces(rest);
  return requirement;
}

std::optional<std::string> conda_version_spec(std::string_view specifiers) {
  std::string out;
  std::string_view rest = specifiers;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    auto part = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (part.empty()) continue;
    std::string converted;
    if (part.starts_with("===")) {
      const auto version = part.substr(3);
      if (!release_numbers(version)) return std::nullopt;
      converted = "==" + std::string(version);
    } else if (part.starts_with("~=")) {
      const auto version = part.substr(2);
      auto numbers = release_numbers(version);
      if (!numbers || numbers->size() < 2) return std::nullopt;
      numbers->pop_back();
      numbers->back() += 1;
      std::string upper;
      for (const auto number : *numbers) upper += (upper.empty() ? "" : ".") + std::to_string(number);
      converted = ">=" + std::string(version) + ",<" + upper;
    } else if (part.starts_with("==") && part.ends_with(".*")) {
      converted = std::string(part.substr(2));
    } else {
      converted = std::string(part);
    }
    out += (out.empty() ? "" : ",") + converted;
  }
  return out;
}

std::expected<MarkerJudgement, std::string> judge_marker(std::string_view marker, const MarkerMachine& machine) {
  MarkerJudgement judgement;
  if (trim(marker).empty()) return judgement;
  auto tokens = tokenize(marker);
  if (!tokens) return std::unexpected(tokens.error());
  if (std::any_of(tokens->begin(), tokens->end(),
                  [](const Token& token) { return token.kind == Token::name && token.text == "extra"; })) {
    judgement.verdict = MarkerVerdict::extra;
    return judgement;
  }
  MarkerEvaluator evaluator(*tokens);
  for (int minor = machine.python_min; minor <= machine.python_max; ++minor) {
    auto value = evaluator.evaluate(linux_cpython(minor));
    if (!value) return std::unexpected(value.error());
    if (*value) judgement.pythons.push_back(minor);
  }
  const auto count = static_cast<int>(judgement.pythons.size());
  judgement.verdict = count == 0 ? MarkerVerdict::never
                      : count == machine.python_max - machine.python_min + 1 ? MarkerVerdict::always
                                                                             : MarkerVerdict::some;
  if (judgement.verdict != MarkerVerdict::some) judgement.pythons.clear();
  return judgement;
}

}  // namespace gpuenv::generate
