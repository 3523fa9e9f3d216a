// Internal to the specs module: the lexical layer of MatchSpec strings, shared
// by conda's reading (match_spec_parse.cpp) and the tests' libmamba reading
// (tests/unit/specs/support/libmamba_printer.cpp).
// Everything here works on views into the spec text, so errors can name the
// column where the problem is.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuenv::specs::spec_syntax {

// Without leading and trailing spaces, tabs, CR and LF: the specs module's one
// trim (util::trim serves the other modules; specs includes nothing but the
// standard library).
std::string_view trim(std::string_view text);
std::string lowered(std::string_view text);

// Throws SpecError("match spec", ...) with the column of a view into the text:
// the error MatchSpec::parse's callers get, thrown once, never caught inside
// the module.
class Reporter {
 public:
  explicit Reporter(std::string_view text) : text_(text) {}
  // For a spec inside another (a `when=` condition): a failure is the
  // enclosing spec's, at `where` in it, naming the condition and its reason.
  Reporter(std::string_view text, const Reporter& enclosing, std::string_view where)
      : text_(text), enclosing_(&enclosing), enclosing_where_(where) {}
  [[noreturn]] void fail(std::string_view reason, std::string_view where) const;
  [[noreturn]] void fail_at(std::string_view reason, std::size_t offset) const;
  // `column` 1-based, 0 for the whole text.
  [[noreturn]] void fail_at_column(std::string_view reason, std::size_t column) const;
  // 1-based column of `part` when it is a view into the text, else 0.
  std::size_t column_of(std::string_view part) const;
  std::string_view text() const { return text_; }

 private:
  std::string_view text_;
  const Reporter* enclosing_ = nullptr;
  std::string_view enclosing_where_;
};

// Text with the offset (into the spec) of each of its characters, for pieces
// that were rebuilt (spaces removed) but must still report columns.
struct MappedText {
  std::string text;
  std::vector<std::size_t> offsets;
  std::size_t offset_of(std::size_t index) const {
    return offsets.empty() ? 0 : offsets[std::min(index, offsets.size() - 1)];
  }
};

// conda cuts a spec at the first `#` (a comment); quotes protect it.
std::string_view strip_comment(std::string_view text);

// The top-level parts of `channel:namespace:name version build[key=value](key=value)`.
struct Sections {
  std::string_view channel;  // empty when absent
  std::optional<std::string_view> name_space;
  std::string_view positional;
  std::optional<std::string_view> brackets;  // between [ and ]
  std::optional<std::string_view> parens;    // between ( and ), after the brackets
};
Sections split_sections(std::string_view text, const Reporter& reporter);

struct KeyValue {
  std::string key;              // lower-cased
  std::string value;            // quotes removed
  std::string_view key_text;    // for error columns
  std::string_view value_text;  // for error columns
  bool has_value = true;        // false for a bare key like `optional`
};
// `key=value, key='v a l', key=[a, b]`, also `version>3` (an implicit `=`).
std::vector<KeyValue> parse_key_values(std::string_view inside, const Reporter& reporter);

// The name / version / build part.
struct Positional {
  std::string_view name;  // empty when the spec has none
  MappedText version;     // spaces after operators and around , | removed
  MappedText build;
  bool build_after_equals = false;  // `1.0=py27_0`: the build came after an `=`
  // split_positional_conda: `<2` in `>=1.8 <2`, a clause written without `,`.
  std::string_view unjoined_clause;
};
// `with_name` false reads a nameless spec (`>=1.2 py*`).
Positional split_positional(std::string_view text, bool with_name, const Reporter& reporter);

// conda's reading of the same part (_NAME_VERSION_RE, _VERSION_BUILD_RE):
// the name runs to the first of ` =<>!~`; the build is the longest tail
// after a space or `=` (not following an operator) holding none of `-=,|<>~`,
// so it may hold spaces (`x 1.0 bld py*`: build `bld py*`); spaces are then
// removed from the version. An empty name means the text starts with no name.
Positional split_positional_conda(std::string_view text, bool with_name);

// conda's _sanitize_version_str, for a positional version or a bracket one
// (where conda passes no build): `==1.2` and `===1.2` alone are `1.2`; `=1.2`
// alone is `1.2*`, but `1.2` before a build, as is `==1.2`.
std::string conda_sanitized_version(const std::string& version, bool has_build);

// conda's legacy parenthesised section (`r (optional)`, `dask (>=0.9)`,
// `mkl(target=x)`), which conda drops: the trailing `(...)` group, unless it
// follows an operator, `,` or `|` (then it is part of a version expression).
// Returns the text before it and the group's inside.
std::pair<std::string_view, std::optional<std::string_view>> split_legacy_parens(
    std::string_view text);

// Splits `a, 'b' ,c` or `[a, b]` into trimmed, unquoted items; empty items throw.
std::vector<std::string> parse_list(std::string_view value, std::string_view where,
                                    const Reporter& reporter);

// Whether a whole spec text names a package file (conda's step 2): a URL or
// path ending in .conda/.tar.bz2, or a bare `name-version-build.conda`. A text
// like `foo=1.tar.bz2` is a spec whose version happens to end that way.
bool names_package_file(std::string_view text);

// The clauses of a version expression (split at , | ( )), trimmed.
std::vector<std::string_view> version_clauses(std::string_view version);

}  // namespace gpuenv::specs::spec_syntax
