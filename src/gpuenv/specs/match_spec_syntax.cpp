#include "gpuenv/specs/match_spec_syntax.hpp"

#include <algorithm>

#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::specs::spec_syntax {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// Index of the `close` matching the `open` at `start`, skipping quoted text
// and nested pairs; npos when unbalanced.
std::size_t find_matching(std::string_view text, std::size_t start, char open, char close) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == open) {
      ++depth;
    } else if (c == close && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

bool is_operator_char(char c) {
  return c == '<' || c == '>' || c == '=' || c == '!' || c == '~' || c == ',' || c == '|';
}

// Copies `text` dropping the spaces that only decorate an operator: after
// `<>=!~,|` and before `,|` ("foo >= 1.0 , < 2" reads as "foo >=1.0,<2"),
// keeping one space wherever a space separates version from build.
MappedText compact_operators(std::string_view text, std::size_t base_offset) {
  MappedText out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_space(text[i])) {
      out.text.push_back(text[i]);
      out.offsets.push_back(base_offset + i);
      ++i;
      continue;
    }
    std::size_t next = i;
    while (next < text.size() && is_space(text[next])) ++next;
    const bool after_operator = !out.text.empty() && is_operator_char(out.text.back());
    const bool before_operator = next < text.size() && (text[next] == ',' || text[next] == '|');
    if (!after_operator && !before_operator && !out.text.empty() && next < text.size()) {
      out.text.push_back(' ');
      out.offsets.push_back(base_offset + i);
    }
    i = next;
  }
  return out;
}

MappedText slice(const MappedText& mapped, std::size_t start, std::size_t end) {
  MappedText out;
  end = std::min(end, mapped.text.size());
  if (start >= end) return out;
  out.text = mapped.text.substr(start, end - start);
  out.offsets.assign(mapped.offsets.begin() + static_cast<std::ptrdiff_t>(start),
                     mapped.offsets.begin() + static_cast<std::ptrdiff_t>(end));
  return out;
}

// Position of the `=` separating a build in `1.0=py27_0`, `>=3.7=*cpython`:
// the last `=` that is not part of an operator, followed by text that can be a
// build (conda's build pattern excludes `-=,|<>~`).
std::size_t find_build_equals(std::string_view token) {
  const auto pos = token.rfind('=');
  if (pos == std::string_view::npos || pos == 0) return std::string_view::npos;
  const char before = token[pos - 1];
  if (before == '=' || before == '!' || before == '<' || before == '>' || before == '~' ||
      before == '|' || before == ',') {
    return std::string_view::npos;
  }
  const auto build = token.substr(pos + 1);
  if (build.empty() || build.find_first_of("-=,|<>~") != std::string_view::npos) {
    return std::string_view::npos;
  }
  return pos;
}

// The `(` matching the `)` that ends the text; npos when unbalanced.
std::size_t open_of_trailing_group(std::string_view text) {
  int depth = 0;
  for (std::size_t i = text.size(); i-- > 0;) {
    if (text[i] == ')') ++depth;
    if (text[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

}  // namespace

std::string_view trim(std::string_view text) {
  std::size_t first = 0;
  while (first < text.size() && is_space(text[first])) ++first;
  std::size_t last = text.size();
  while (last > first && is_space(text[last - 1])) --last;
  return text.substr(first, last - first);
}

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

void Reporter::fail(std::string_view reason, std::string_view where) const {
  fail_at_column(reason, column_of(where));
}

void Reporter::fail_at(std::string_view reason, std::size_t offset) const {
  fail_at_column(reason, std::min(offset, text_.size()) + 1);
}

void Reporter::fail_at_column(std::string_view reason, std::size_t column) const {
  if (enclosing_) {
    enclosing_->fail("the condition '" + std::string(text_) +
                         "' is not a valid match spec: " + std::string(reason),
                     enclosing_where_);
  }
  throw SpecError("match spec", text_, reason, column);
}

std::size_t Reporter::column_of(std::string_view part) const {
  if (part.data() < text_.data() || part.data() > text_.data() + text_.size()) return 0;
  return static_cast<std::size_t>(part.data() - text_.data()) + 1;
}

std::string_view strip_comment(std::string_view text) {
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#') {
      return trim(text.substr(0, i));
    }
  }
  return trim(text);
}

Sections split_sections(std::string_view text, const Reporter& reporter) {
  Sections sections;
  // A trailing `(target=..., optional)` section only follows a bracket
  // section; a parenthesis elsewhere belongs to a version expression.
  if (text.ends_with(')')) {
    if (const auto open = open_of_trailing_group(text); open != std::string_view::npos) {
      const auto before = trim(text.substr(0, open));
      if (before.ends_with(']')) {
        sections.parens = text.substr(open + 1, text.size() - open - 2);
        text = before;
      }
    }
  }

  std::vector<std::pair<std::size_t, std::size_t>> groups;
  std::vector<std::size_t> colons;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') {
      const auto close = find_matching(text, i, '[', ']');
      // An unbalanced `[` stays in the text, where the name or version check
      // reports it.
      if (close == std::string_view::npos) continue;
      groups.emplace_back(i, close);
      i = close;
    } else if (text[i] == ':') {
      colons.push_back(i);
    }
  }

  const std::size_t last_colon = colons.empty() ? std::string_view::npos : colons.back();
  std::vector<std::pair<std::size_t, std::size_t>> attribute_groups;
  for (const auto& group : groups) {
    if (last_colon == std::string_view::npos || group.first > last_colon) {
      attribute_groups.push_back(group);
    }
  }
  if (attribute_groups.size() > 1) {
    reporter.fail("only one bracket section is allowed", text.substr(attribute_groups[1].first));
  }
  std::size_t positional_end = text.size();
  if (!attribute_groups.empty()) {
    const auto [open, close] = attribute_groups.front();
    if (!trim(text.substr(close + 1)).empty()) {
      reporter.fail("unexpected text after the bracket section", trim(text.substr(close + 1)));
    }
    sections.brackets = text.substr(open + 1, close - open - 1);
    positional_end = open;
  }
  std::size_t positional_start = 0;
  if (last_colon != std::string_view::npos && last_colon < positional_end) {
    positional_start = last_colon + 1;
    if (colons.size() >= 2) {
      const std::size_t previous = colons[colons.size() - 2];
      sections.channel = text.substr(0, previous);
      sections.name_space = text.substr(previous + 1, last_colon - previous - 1);
    } else {
      sections.name_space = text.substr(0, last_colon);
    }
  }
  sections.positional = text.substr(positional_start, positional_end - positional_start);
  return sections;
}

std::vector<KeyValue> parse_key_values(std::string_view inside, const Reporter& reporter) {
  std::vector<KeyValue> items;
  std::size_t i = 0;
  const auto skip_spaces = [&] {
    while (i < inside.size() && is_space(inside[i])) ++i;
  };
  bool expect_item = true;
  skip_spaces();
  if (i == inside.size()) reporter.fail("the bracket section is empty", inside);
  while (i < inside.size()) {
    KeyValue item;
    const std::size_t key_start = i;
    while (i < inside.size() && is_key_char(inside[i])) ++i;
    item.key_text = inside.substr(key_start, i - key_start);
    if (item.key_text.empty()) {
      reporter.fail("a key or a value is missing", inside.substr(key_start));
    }
    item.key = lowered(item.key_text);
    skip_spaces();
    if (i < inside.size() && inside[i] == '=') {
      ++i;
      skip_spaces();
    } else if (i < inside.size() &&
               (inside[i] == '<' || inside[i] == '>' || inside[i] == '!' || inside[i] == '~') &&
               (item.key == "version" || item.key == "build_number")) {
      // conda still reads `version>3` as `version='>3'`.
    } else {
      item.has_value = false;
    }
    if (item.has_value) {
      const std::size_t value_start = i;
      if (i < inside.size() && (inside[i] == '\'' || inside[i] == '"')) {
        const auto close = inside.find(inside[i], i + 1);
        if (close == std::string_view::npos) {
          reporter.fail("the quoted value is not closed", inside.substr(i));
        }
        item.value = std::string(inside.substr(i + 1, close - i - 1));
        item.value_text = inside.substr(i + 1, close - i - 1);
        i = close + 1;
      } else if (i < inside.size() && inside[i] == '[') {
        const auto close = find_matching(inside, i, '[', ']');
        if (close == std::string_view::npos)
          reporter.fail("the list is not closed", inside.substr(i));
        item.value_text = inside.substr(i, close - i + 1);
        item.value = std::string(item.value_text);
        i = close + 1;
      } else {
        while (i < inside.size() && inside[i] != ',' && !is_space(inside[i])) ++i;
        item.value_text = inside.substr(value_start, i - value_start);
        item.value = std::string(item.value_text);
      }
      if (trim(item.value).empty()) {
        reporter.fail("a key or a value is missing", item.key_text);
      }
    }
    for (const auto& previous : items) {
      if (previous.key == item.key)
        reporter.fail("a key can only be specified once", item.key_text);
    }
    items.push_back(std::move(item));
    expect_item = false;
    skip_spaces();
    if (i < inside.size() && inside[i] == ',') {
      ++i;
      expect_item = true;
      skip_spaces();
    } else if (i < inside.size() && !is_key_char(inside[i])) {
      reporter.fail("expected ',' between key=value pairs", inside.substr(i));
    }
  }
  if (expect_item) reporter.fail("a key or a value is missing", inside.substr(inside.size()));
  return items;
}

Positional split_positional(std::string_view text, bool with_name, const Reporter& reporter) {
  Positional out;
  text = trim(text);
  std::string_view rest = text;
  if (with_name) {
    const auto name_end = text.find_first_of(" \t=<>!~");
    out.name = text.substr(0, name_end);
    rest = name_end == std::string_view::npos ? std::string_view() : text.substr(name_end);
  }
  rest = trim(rest);
  const auto base = static_cast<std::size_t>(rest.data() - reporter.text().data());
  MappedText compact = compact_operators(rest, base);
  // `numpy=` and `libblas=*=` (conda's repr of a free version) leave a bare `=`.
  while (!compact.text.empty() && compact.text.back() == '=') {
    compact.text.pop_back();
    compact.offsets.pop_back();
  }
  if (compact.text.empty()) return out;

  const auto space = compact.text.find(' ');
  if (space == std::string::npos) {
    const auto equals = find_build_equals(compact.text);
    if (equals == std::string_view::npos) {
      out.version = std::move(compact);
    } else {
      out.version = slice(compact, 0, equals);
      out.build = slice(compact, equals + 1, compact.text.size());
      out.build_after_equals = true;
    }
    return out;
  }
  if (compact.text.find(' ', space + 1) != std::string::npos) {
    const auto third = compact.text.find(' ', space + 1) + 1;
    reporter.fail_at("expected at most a version and a build string before this text",
                     compact.offset_of(third));
  }
  out.version = slice(compact, 0, space);
  out.build = slice(compact, space + 1, compact.text.size());
  if (out.build.text.starts_with('=')) {
    out.build = slice(out.build, 1, out.build.text.size());
    out.build_after_equals = true;
  }
  return out;
}

namespace {

bool is_one_of(char c, std::string_view characters) {
  return characters.find(c) != std::string_view::npos;
}

MappedText mapped(std::string_view text, std::size_t base_offset, bool drop_spaces) {
  MappedText out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (drop_spaces && (text[i] == ' ' || text[i] == '\t')) continue;
    out.text.push_back(text[i]);
    out.offsets.push_back(base_offset + i);
  }
  return out;
}

}  // namespace

Positional split_positional_conda(std::string_view text, bool with_name) {
  Positional out;
  std::string_view rest = text;
  if (with_name) {
    const auto name_end = text.find_first_of(" \t=<>!~");
    out.name = text.substr(0, name_end);
    if (name_end == std::string_view::npos) return out;
    rest = text.substr(name_end);
  }
  rest = trim(rest);
  const std::size_t n = rest.size();
  if (n == 0) return out;
  const auto base = static_cast<std::size_t>(rest.data() - text.data());
  // clean_from[i]: rest[i..] holds none of the characters a build cannot
  // hold; computed once so the split stays linear on hostile input.
  std::vector<bool> clean_from(n + 1, true);
  for (std::size_t i = n; i-- > 0;) clean_from[i] = clean_from[i + 1] && !is_one_of(rest[i], "-=,|<>~");
  // The last character before each position that is not a space. conda
  // looks at the character right before the separator only, so in
  // `>=   1.0` it takes the second space for a build separator and fails on
  // the version `>=`: a plain bug (CEP 29 ignores spaces after operators).
  std::vector<char> last_non_space(n + 1, '\0');
  for (std::size_t i = 0; i < n; ++i) last_non_space[i + 1] = rest[i] == ' ' ? last_non_space[i] : rest[i];
  const auto build_after = [&](std::size_t p) {
    return p > 0 && p + 1 < n && (rest[p] == ' ' || rest[p] == '=') &&
           !is_one_of(rest[p - 1], "=!|,<>~") &&
           (rest[p] == '=' || !is_one_of(last_non_space[p], "=!|,<>~")) &&
           clean_from[p + 1] && !trim(rest.substr(p + 1)).empty();
  };
  // The regex's order of attempts: a version of k characters, plus one more
  // when that one is not an operator character, the build group tried first.
  std::size_t version_end = n;
  bool has_build = false;
  for (std::size_t k = 1; k <= n && !has_build && version_end == n; ++k) {
    bool decided = false;
    for (const std::size_t p : {k + 1, k}) {
      if (p == k + 1 && (k >= n || is_one_of(rest[k], "><!,|"))) continue;
      if (build_after(p)) {
        version_end = p;
        has_build = true;
        decided = true;
        break;
      }
      if (p == n) {
        decided = true;
        break;
      }
    }
    if (decided) break;
  }
  out.version = mapped(rest.substr(0, version_end), base, true);
  // `>=1.8 <2`: a second clause where a build would be; said when the
  // version then fails to parse.
  for (std::size_t i = 1; i + 1 < version_end; ++i) {
    if (rest[i] == ' ' && rest[i + 1] != ' ' && !is_one_of(last_non_space[i], "=!|,<>~") &&
        is_one_of(rest.substr(i + 1, version_end - i - 1).front(), "<>!=~")) {
      out.unjoined_clause = rest.substr(i + 1, version_end - i - 1);
      break;
    }
  }
  if (has_build) {
    const std::string_view build_text = rest.substr(version_end + 1);
    const std::string_view build = trim(build_text);
    out.build = mapped(build, base + version_end + 1 + (build.data() - build_text.data()), false);
    out.build_after_equals = rest[version_end] == '=';
  }
  return out;
}

std::string conda_sanitized_version(const std::string& version, bool has_build) {
  if (!version.starts_with('=') || version == "=" || version == "==") return version;
  const auto first_other = version.find_first_not_of('=');
  const std::string_view rest =
      std::string_view(version).substr(first_other == std::string::npos ? version.size() : first_other);
  if (version.starts_with("==") && !has_build) return std::string(rest);
  if (rest.find_first_of("=,|") == std::string_view::npos) {
    if (!has_build && !rest.ends_with('*')) return std::string(rest) + "*";
    return std::string(rest);
  }
  return version;
}

std::pair<std::string_view, std::optional<std::string_view>> split_legacy_parens(
    std::string_view text) {
  const std::string_view body = trim(text);
  if (!body.ends_with(')')) return {text, std::nullopt};
  const auto open = open_of_trailing_group(body);
  if (open == std::string_view::npos) return {text, std::nullopt};
  const std::string_view before = trim(body.substr(0, open));
  if (before.empty() || is_one_of(before.back(), "=<>!~,|(")) return {text, std::nullopt};
  return {before, body.substr(open + 1, body.size() - open - 2)};
}

std::vector<std::string> parse_list(std::string_view value, std::string_view where,
                                    const Reporter& reporter) {
  value = trim(value);
  if (value.starts_with('[')) {
    if (!value.ends_with(']')) reporter.fail("the list is not closed", where);
    value = value.substr(1, value.size() - 2);
  }
  std::vector<std::string> items;
  const auto add_item = [&](std::string_view item) {
    item = trim(item);
    if (item.size() >= 2 && (item.front() == '\'' || item.front() == '"') &&
        item.back() == item.front()) {
      item = trim(item.substr(1, item.size() - 2));
    }
    if (item.empty()) reporter.fail("a list item is empty", where);
    // Printed lists quote each item, so a quote inside one would end it early
    // when read back (fuzz finding).
    if (item.find_first_of("'\"") != std::string_view::npos) {
      reporter.fail("a list item cannot contain quotes", where);
    }
    items.emplace_back(item);
  };
  std::size_t start = 0;
  char quote = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == ']') {
      reporter.fail("lists cannot be nested", where);
    } else if (c == ',') {
      add_item(value.substr(start, i - start));
      start = i + 1;
    }
  }
  if (quote != 0) reporter.fail("the quoted value is not closed", where);
  add_item(value.substr(start));
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  return items;
}

bool names_package_file(std::string_view text) {
  if (!is_package_file_name(text) || text.find("::") != std::string_view::npos) return false;
  const auto dist = strip_package_extension(text.substr(text.find_last_of("/\\") + 1));
  if (std::count(dist.begin(), dist.end(), '-') < 2) return false;
  if (has_url_scheme(text) || looks_like_path(text)) return true;
  return text.find_first_of(" \t=<>[]():,|!~'\"#*") == std::string_view::npos;
}

std::vector<std::string_view> version_clauses(std::string_view version) {
  std::vector<std::string_view> clauses;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= version.size(); ++i) {
    if (i == version.size() || version[i] == ',' || version[i] == '|' || version[i] == '(' ||
        version[i] == ')') {
      const auto clause = trim(version.substr(start, i - start));
      if (!clause.empty()) clauses.push_back(clause);
      start = i + 1;
    }
  }
  return clauses;
}

}  // namespace gpuenv::specs::spec_syntax
