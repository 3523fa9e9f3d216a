// Reading MatchSpec text the way conda does (conda/models/match_spec.py
// _parse_spec_str, CEP 29), plus rattler's strict checks on request.
#include <algorithm>

#include "gpuenv/specs/match_spec.hpp"

#include "gpuenv/specs/condition.hpp"
#include "gpuenv/specs/match_spec_extra.hpp"
#include "gpuenv/specs/match_spec_names.hpp"
#include "gpuenv/specs/match_spec_syntax.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/spec_parsing.hpp"

namespace gpuenv::specs {

using spec_syntax::KeyValue;
using spec_syntax::lowered;
using spec_syntax::Reporter;
using spec_syntax::trim;
using spec_names::is_feature_name;
using spec_names::is_under_channel_alias;
using spec_names::is_valid_package_name;
using spec_names::without_scheme;

namespace {

// `when=` conditions are specs themselves; nesting is bounded so hostile
// input cannot exhaust the stack.
constexpr int max_condition_depth = 8;

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_name_separator(char c) { return c == '.' || c == '-' || c == '_'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

bool is_hex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

// CEP 44: `[a-z0-9_.+-]{1,64}`, compared as written.
bool is_extras_group_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return is_lower_alnum(c) || c == '_' || c == '.' || c == '+' || c == '-';
  });
}

// CEP 45's MatchSpec side: `^[a-z0-9_*]+(:[a-z0-9_*]+)?$`.
bool is_flag_pattern(std::string_view flag) {
  const auto is_part = [](std::string_view part) {
    return !part.empty() &&
           std::all_of(part.begin(), part.end(), [](char c) { return is_lower_alnum(c) || c == '_' || c == '*'; });
  };
  const auto colon = flag.find(':');
  if (colon == std::string_view::npos) return is_part(flag);
  return is_part(flag.substr(0, colon)) && is_part(flag.substr(colon + 1));
}

bool is_known_subdir(std::string_view text) {
  const auto subdirs = known_subdirs();
  return std::find(subdirs.begin(), subdirs.end(), text) != subdirs.end();
}

}  // namespace

// One parse of one spec text.
class MatchSpecParser {
 public:
  MatchSpecParser(std::string_view text, const ChannelContext& context, ParseMode mode,
                  bool nameless, int depth)
      : text_(text),
        reporter_(text_),
        context_(context),
        mode_(mode),
        nameless_(nameless),
        depth_(depth) {}

  // A `when=` condition inside `enclosing`, written at `where` there.
  MatchSpecParser(std::string_view text, const MatchSpecParser& enclosing, std::string_view where)
      : text_(text),
        reporter_(text_, enclosing.reporter_, where),
        context_(enclosing.context_),
        mode_(enclosing.mode_),
        nameless_(false),
        depth_(enclosing.depth_ + 1) {}

  MatchSpec parse() {
    spec_.original_ = std::string(text_);
    // No spec holds a control character (a tab is white space); refusing
    // them here keeps every printed form readable back (fuzz findings).
    for (std::size_t i = 0; i < text_.size(); ++i) {
      const auto c = static_cast<unsigned char>(text_[i]);
      if ((c < 0x20 && c != '\t') || c == 0x7f) fail("a match spec cannot contain control characters", text_.substr(i));
    }
    std::string_view body = trim(text_);
    // `url#md5` (explicit environment files): the hash is not a comment there.
    if (const auto hash = body.rfind('#'); hash != std::string_view::npos) {
      const auto before = trim(body.substr(0, hash));
      const auto after = trim(body.substr(hash + 1));
      if (spec_syntax::names_package_file(before) && is_hex(after) &&
          (after.size() == 32 || after.size() == 64)) {
        read_package_url(before, after);
        return finish();
      }
    }
    const std::string_view uncommented = spec_syntax::strip_comment(body);
    if (uncommented.empty() && !body.empty()) {
      // conda: `#numpy >=1.0` is no spec at all, not the spec matching everything.
      fail("no package name found: everything after '#' is a comment", body);
    }
    body = uncommented;
    if (body.empty()) return finish();
    // conda drops a trailing ` if <condition>` (reserved for conditionals);
    // inside a bracket value it is just text.
    if (const auto condition = body.find(" if ");
        condition != std::string_view::npos &&
        body.find(']', condition) == std::string_view::npos) {
      body = trim(body.substr(0, condition));
    }
    if (spec_syntax::names_package_file(body)) {
      read_package_url(body, {});
      return finish();
    }
    if (body.ends_with('@') && is_feature_name(body.substr(0, body.size() - 1))) {
      // conda's legacy `feature@`: any package tracking that feature.
      extra().track_features =
          std::vector<std::string>{std::string(body.substr(0, body.size() - 1))};
      return finish();
    }
    read_spec(body);
    return finish();
  }

 private:
  [[noreturn]] void fail(std::string_view reason, std::string_view where) const {
    reporter_.fail(reason, where);
  }

  MatchSpec::Extra& extra() {
    if (!extra_) extra_.emplace();
    return *extra_;
  }

  MatchSpec finish() {
    if (extra_) spec_.extra_ = std::make_shared<const MatchSpec::Extra>(std::move(*extra_));
    return std::move(spec_);
  }

  void read_spec(std::string_view body) {
    // conda drops a legacy `(optional)`, `(target=x)`, `(>=0.9)` section.
    const auto [without_parens, parens] = spec_syntax::split_legacy_parens(body);
    const auto sections = spec_syntax::split_sections(without_parens, reporter_);
    const auto positional = spec_syntax::split_positional_conda(sections.positional, !nameless_);

    if (!nameless_) {
      // conda reads the name from the first character on: ` numpy` and
      // `tk:: 8.5*` have none.
      if (positional.name.empty() || spec_syntax::trim(text_.substr(0, 1)).empty()) {
        fail("no package name found (a spec starts with the package name, without spaces before it)",
             sections.positional);
      }
      spec_.name_ = parse_name(positional.name);
    }
    if (!trim(sections.channel).empty()) apply_channel(sections.channel);
    if (sections.name_space && !trim(*sections.name_space).empty()) {
      extra().name_space = std::string(trim(*sections.name_space));
    }

    // Positional version and build, with conda's `=` rules.
    std::string version_text;
    std::string_view version_where = sections.positional;
    std::string build_text = positional.build.text;
    std::string_view build_where =
        build_text.empty() ? sections.positional : text_.substr(positional.build.offset_of(0));
    if (mode_ == ParseMode::strict && positional.build_after_equals) {
      reporter_.fail_at("the build string '=" + build_text +
                            "' is not valid, it can only contain alphanumeric characters and "
                            "underscores (rattler's strict mode)",
                        positional.build.offset_of(0));
    }
    if (!positional.version.text.empty()) {
      const auto where = text_.substr(positional.version.offset_of(0));
      check_version_text(positional.version.text, where);
      version_text = spec_syntax::conda_sanitized_version(positional.version.text, !build_text.empty());
      if (version_text == "=") version_text.clear();  // conda reads `numpy=` as `numpy`
      version_where = where;
    }

    if (sections.brackets) {
      apply_brackets(*sections.brackets, version_text, version_where, build_text, build_where);
    }
    if (parens) apply_parens(*parens);

    const std::string hint =
        positional.unjoined_clause.empty() ||
                version_where.data() != text_.data() + positional.version.offset_of(0)
            ? std::string()
            : "; '" + std::string(positional.unjoined_clause) +
                  "' is not a build string (join version clauses with ',')";
    if (!version_text.empty()) set_version(version_text, version_where, hint);
    if (!build_text.empty()) set_build(build_text, build_where);
  }

  void set_build(const std::string& build, std::string_view where) {
    const bool regex = build.size() >= 2 && build.front() == '^' && build.back() == '$';
    if (build.find_first_of("'\"") != std::string::npos) {
      fail("the build string '" + build + "' cannot contain quotes", where);
    }
    if (!regex && build.find_first_of("<>!~=,|") != std::string::npos) {
      // `numpy >=1.8 <2`: a second constraint where the build string goes.
      fail("'" + build + "' is not a build string (join version clauses with ',')", where);
    }
    // conda's build pattern allows spaces inside (`x 1.0 bld py*`).
    if (!regex && !std::all_of(build.begin(), build.end(),
                               [](char c) { return c == ' ' || is_build_char(c); })) {
      fail("the build string '" + build +
               "' contains invalid characters (CEP 26: letters, digits, _ . + and * globs)",
           where);
    }
    spec_.build_ = parse_pattern(build, StringMatcher::Case::sensitive, where);
    spec_.build_star_ = spec_.build_.is_any();
  }

  static bool is_build_char(char c) {
    return is_lower_alnum(c) || is_upper(c) || c == '_' || c == '.' || c == '+' || c == '*';
  }

  // Checks made on the version as written, before conda's rewriting.
  void check_version_text(std::string_view version, std::string_view where) {
    // libmamba's rule: a version without an operator starts with a digit or a
    // lower-case letter (CEP 26 versions are lower case; `V1.0` is a typo).
    for (const auto clause : spec_syntax::version_clauses(version)) {
      if (is_upper(clause.front())) {
        fail("the version '" + std::string(clause) +
                 "' must start with a digit or a lower-case letter",
             where);
      }
    }
    if (mode_ == ParseMode::strict) {
      if (const auto strict = detail::parse_version_spec(version, ParseMode::strict); !strict) {
        fail(strict.error().reason() + " (rattler's strict mode)", where);
      }
    }
  }

  void set_version(const std::string& text, std::string_view where, const std::string& hint = {}) {
    const ParseMode version_mode =
        mode_ == ParseMode::lenient ? ParseMode::lenient : ParseMode::conda;
    auto version = detail::parse_version_spec(text, version_mode);
    if (!version) {
      const SpecError& error = version.error();
      std::size_t column = reporter_.column_of(where);
      if (column > 0 && error.column() > 0 && where.starts_with(text)) column += error.column() - 1;
      reporter_.fail_at_column("invalid version '" + text + "': " + error.reason() + hint, column);
    }
    spec_.version_ = std::move(*version);
    // `*` says nothing; conda keeps it only for strictness and printing.
    if (spec_.version_.is_explicitly_free()) {
      spec_.version_ = VersionSpec();
      spec_.version_text_.clear();
      spec_.version_star_ = true;
    } else {
      spec_.version_text_ = text;
    }
  }

  StringMatcher parse_name(std::string_view name) {
    if (name.size() >= 2 && name.front() == '^' && name.back() == '$') {
      return parse_pattern(name, StringMatcher::Case::insensitive, name);
    }
    const std::string lower = lowered(name);
    const bool glob = lower.find('*') != std::string::npos;
    for (const char c : lower) {
      if (!is_lower_alnum(c) && !is_name_separator(c) && !(glob && c == '*')) {
        fail("the package name '" + std::string(name) + "' contains invalid characters", name);
      }
    }
    if (glob) return StringMatcher::parse(lower, StringMatcher::Case::insensitive);
    if (spec_syntax::names_package_file(lower)) {
      // Printed back, `pkg-1-0.conda` would read as a package file.
      fail("the package name '" + std::string(name) + "' looks like a package file name", name);
    }
    if (!is_valid_package_name(lower)) {
      fail("invalid package name '" + std::string(name) +
               "' (CEP 26: letters, digits and single . - _ separators)",
           name);
    }
    return StringMatcher::exact(lower, StringMatcher::Case::insensitive);
  }

  StringMatcher parse_pattern(std::string_view pattern, StringMatcher::Case case_mode,
                              std::string_view where) {
    // Printed back outside quotes, a `#` would start a comment.
    if (pattern.find('#') != std::string_view::npos) {
      fail("'" + std::string(pattern) + "' cannot contain '#'", where);
    }
    StringMatcher matcher;
    if (auto failed = detail::parse_string_matcher(matcher, pattern, case_mode)) {
      fail(failed->reason() + " in '" + std::string(pattern) + "'", where);
    }
    return matcher;
  }

  // `conda-forge`, `conda-forge/linux-64`, `*/linux-64`, `conda-forge[noarch]`,
  // a URL or a path; from before `::` or from `[channel=...]`.
  void apply_channel(std::string_view text) {
    std::string_view channel = trim(text);
    if (channel.find_first_of("'\" ") != std::string_view::npos) {
      fail("a channel cannot contain quotes or spaces", channel);
    }
    std::optional<std::vector<std::string>> subdirs;
    // libmamba's `channel[subdir,...]`, which CEP 29 lists as conda legacy.
    if (channel.ends_with(']')) {
      if (const auto open = channel.rfind('['); open != std::string_view::npos && open > 0) {
        subdirs = spec_syntax::parse_list(channel.substr(open), channel.substr(open), reporter_);
        channel = trim(channel.substr(0, open));
      }
    }
    const bool pattern = channel.find('*') != std::string_view::npos ||
                         (channel.size() >= 2 && channel.front() == '^' && channel.back() == '$');
    const bool regex = channel.size() >= 2 && channel.front() == '^' && channel.back() == '$';
    if (pattern && !regex &&
        channel.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                  "_.+-/*:~") != std::string_view::npos) {
      fail("the channel pattern '" + std::string(channel) + "' contains invalid characters",
           channel);
    }
    if (pattern) {
      // conda splits a known subdir off whatever its case (`*/LINUX-64::x`).
      if (const auto slash = channel.rfind('/');
          slash != std::string_view::npos && is_known_subdir(lowered(channel.substr(slash + 1)))) {
        if (!subdirs) subdirs = std::vector<std::string>{std::string(channel.substr(slash + 1))};
        channel = channel.substr(0, slash);
        if (const auto again = channel.rfind('/');
            again != std::string_view::npos && is_known_subdir(channel.substr(again + 1))) {
          fail("the channel pattern names two subdirs", channel);
        }
      }
      auto matcher = parse_pattern(channel, StringMatcher::Case::sensitive, channel);
      extra().channel =
          matcher.is_any() ? ChannelMatcher::any() : ChannelMatcher::pattern(std::move(matcher));
    } else {
      auto parsed = resolve_channel(channel);
      Channel& resolved = *parsed;
      if (!resolved.package_filename().empty()) {
        fail("a package file cannot be used as a channel (use url=...)", channel);
      }
      if (!subdirs && resolved.platform()) subdirs = std::vector<std::string>{*resolved.platform()};
      // conda (_parse_channel) keeps a channel by its canonical name
      // (pkgs/main -> defaults, https://conda.anaconda.org/conda-forge ->
      // conda-forge), except a URL outside the channel alias or a path, which
      // it keeps as a URL.
      const bool url = has_url_scheme(channel);
      const bool keeps_url = (url && !is_under_channel_alias(resolved.base_url(), context_.channel_alias)) ||
                             (!url && looks_like_path(channel));
      std::string display = keeps_url ? resolved.base_url() : resolved.canonical_name();
      if (url && !keeps_url) display = canonical_name_under_alias(resolved.base_url());
      // It also matches by that name: `pkgs/r::x` is `defaults::x`, which holds
      // pkgs/main's packages too. (A URL keeps its own channel, token and all.)
      if (!url && !keeps_url && display != resolved.name()) {
        auto by_name = resolve_channel(display);
        extra().channel = ChannelMatcher::of(std::move(*by_name), std::move(display));
      } else {
        extra().channel = ChannelMatcher::of(std::move(resolved), std::move(display));
      }
    }
    if (subdirs) extra().subdirs = std::move(*subdirs);
  }

  // The name conda gives a URL under the channel alias, whatever its scheme:
  // the canonical name of the path after the alias (`pkgs/main` -> defaults).
  std::string canonical_name_under_alias(std::string_view base_url) {
    std::string_view alias = without_scheme(context_.channel_alias);
    while (alias.ends_with('/')) alias.remove_suffix(1);
    const std::string_view name = without_scheme(base_url).substr(alias.size() + 1);
    const auto by_name = detail::parse_channel(name, context_);
    return by_name ? by_name->canonical_name() : std::string(name);
  }

  // Always a channel: a failure is reported (thrown) here.
  detail::Parsed<Channel> resolve_channel(std::string_view text) {
    auto channel = detail::parse_channel(text, context_);
    if (!channel) fail("invalid channel '" + std::string(text) + "': " + channel.error().reason(), text);
    return channel;
  }

  void apply_brackets(std::string_view inside, std::string& version_text,
                      std::string_view& version_where, std::string& build_text,
                      std::string_view& build_where) {
    const auto items = spec_syntax::parse_key_values(inside, reporter_);
    const bool any_value = std::any_of(items.begin(), items.end(),
                                       [](const KeyValue& item) { return item.has_value; });
    // Channel before subdir whatever their order: an explicit subdir wins
    // over one read from the channel.
    const KeyValue* channel = nullptr;
    const KeyValue* subdir = nullptr;
    for (const auto& item : items) {
      if (std::any_of(item.key_text.begin(), item.key_text.end(), is_upper)) {
        fail("cannot match on field '" + std::string(item.key_text) + "' (keys are lower case)",
             item.key_text);
      }
      if (!item.has_value && item.key != "optional") {
        fail(any_value ? "a key or a value is missing"
                       : "no key-value pairs found in square brackets",
             item.key_text);
      }
      const std::string& key = item.key;
      const std::string_view value = trim(item.value);
      if (key == "name") {
        // CEP 29: the name keyword is ignored; the positional name wins.
      } else if (key == "version") {
        check_version_text(value, item.value_text);
        version_text = spec_syntax::conda_sanitized_version(std::string(value), false);
        version_where = item.value_text;
      } else if (key == "build" || key == "build_string") {
        build_text = std::string(value);
        build_where = item.value_text;
      } else if (key == "build_number") {
        auto build_number = detail::parse_build_number_spec(value);
        if (!build_number) {
          fail("invalid build number '" + std::string(value) + "': " + build_number.error().reason(),
               item.value_text);
        }
        spec_.build_number_ = *build_number;
        // conda prints the value as written (`=0`), gpuenv's spec normalizes it.
        const std::string written(trim(value));
        if (written != build_number->str()) extra().build_number_written.text = written;
      } else if (key == "channel") {
        channel = &item;
      } else if (key == "subdir") {
        subdir = &item;
      } else if (key == "url") {
        extra().url = std::string(value);
      } else if (key == "fn" || key == "filename") {
        extra().fn = std::string(value);
      } else if (key == "md5") {
        extra().md5 = std::string(value);
      } else if (key == "sha256") {
        extra().sha256 = std::string(value);
      } else if (key == "license") {
        extra().license = parse_pattern(value, StringMatcher::Case::insensitive, item.value_text);
      } else if (key == "license_family") {
        extra().license_family =
            parse_pattern(value, StringMatcher::Case::insensitive, item.value_text);
      } else if (key == "track_features") {
        extra().track_features = read_features(value, item.value_text);
      } else if (key == "features") {
        extra().features = read_features(value, item.value_text);
      } else if (key == "extras") {
        extra().extras = read_names(value, item.value_text, is_extras_group_name,
                                    "an extras group name is 1 to 64 of a-z 0-9 _ . + - (CEP 44)");
      } else if (key == "flags") {
        extra().flags = read_names(value, item.value_text, is_flag_pattern,
                                   "a flag is a-z 0-9 _ * with at most one ':' inside (CEP 45)");
      } else if (key == "when") {
        extra().when = read_condition(value, item.value_text);
      } else if (key == "optional") {
        extra().optional = !item.has_value || is_true(value);
      } else if (key == "target") {
        extra().target = std::string(value);
      } else {
        fail("cannot match on field '" + std::string(item.key_text) + "'", item.key_text);
      }
    }
    if (channel) apply_channel(channel->value);
    if (subdir) {
      extra().subdirs = spec_syntax::parse_list(subdir->value, subdir->value_text, reporter_);
    }
  }

  // The legacy `(target=blarg,optional)` section. conda parses it and drops
  // it (nothing in it is an error or a constraint); gpuenv keeps `optional`
  // and `target` for libmamba's printed form.
  void apply_parens(std::string_view inside) {
    std::size_t start = 0;
    while (start <= inside.size()) {
      const auto comma = std::min(inside.find(',', start), inside.size());
      const std::string_view item = trim(inside.substr(start, comma - start));
      if (item == "optional") extra().optional = true;
      if (item.starts_with("target=") && item.size() > 7) {
        extra().target = std::string(trim(item.substr(7)));
      }
      start = comma + 1;
    }
  }

  // CEP 43: `and` / `or` / parentheses over match specs. Kept as the
  // canonical text (Condition::str), which the solver parses again.
  std::string read_condition(std::string_view value, std::string_view where) {
    if (depth_ >= max_condition_depth) fail("conditions are nested too deeply", where);
    // `value` may be an unquoted copy: a part of it is found again in the
    // written text so that errors name the part's own column.
    const auto located = [&](std::string_view part) {
      if (reporter_.column_of(part) > 0) return part;
      const auto written = where.find(value);
      if (written == std::string_view::npos || part.data() < value.data() ||
          part.data() + part.size() > value.data() + value.size()) {
        return where;
      }
      return where.substr(written + static_cast<std::size_t>(part.data() - value.data()), part.size());
    };
    const auto report = [&](std::string_view reason, std::string_view at) {
      fail("invalid condition '" + std::string(value) + "': " + std::string(reason), located(at));
    };
    // A failure in a leaf is reported by the leaf's Reporter as this spec's.
    const auto parse_leaf = [&](std::string_view leaf) {
      return MatchSpecParser(leaf, *this, located(leaf)).parse();
    };
    return Condition::parse_with(value, parse_leaf, report).str();
  }

  std::vector<std::string> read_names(std::string_view value, std::string_view where,
                                      bool (*is_valid)(std::string_view), std::string_view rule) {
    auto names = spec_syntax::parse_list(value, where, reporter_);
    for (const auto& name : names) {
      if (!is_valid(name)) fail("invalid name '" + name + "': " + std::string(rule), where);
    }
    return names;
  }

  std::vector<std::string> read_features(std::string_view value, std::string_view where) {
    auto features = split_features(value);
    for (const auto& feature : features) {
      if (!is_feature_name(feature)) {
        fail("invalid feature name '" + feature + "' (letters, digits, - _ . +)", where);
      }
    }
    return features;
  }

  static bool is_true(std::string_view value) {
    const std::string lower = lowered(value);
    return lower == "true" || lower == "1" || lower == "yes" || lower == "y" || lower == "t";
  }

  // conda's step 2: a package file (URL or path) as the whole spec.
  void read_package_url(std::string_view target, std::string_view hash) {
    if (target.find_first_of("'\"") != std::string_view::npos) {
      fail("a package URL or path cannot contain quotes", target);
    }
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (static_cast<unsigned char>(target[i]) < 0x20 || target[i] == 0x7f) {
        fail("a package URL or path cannot contain control characters", target.substr(i));
      }
    }
    // A package file is one exact location; a '*' would turn its channel into
    // a glob when str() is read back (found by fuzz_match_spec).
    if (const auto star = target.find('*'); star != std::string_view::npos) {
      fail("a package URL or path cannot contain '*' (it names one file, not a pattern)",
           target.substr(star));
    }
    std::string url =
        has_url_scheme(target) ? std::string(target) : path_to_file_url(target, context_);
    const auto slash = url.rfind('/');
    const std::string_view parent = std::string_view(url).substr(0, slash);
    std::string filename = url.substr(slash + 1);
    if (url.starts_with("file://")) filename = percent_decode(filename);  // conda's url_to_path
    const std::string_view dist = strip_package_extension(filename);
    const auto build_dash = dist.rfind('-');
    const auto version_dash = build_dash == std::string_view::npos || build_dash == 0
                                  ? std::string_view::npos
                                  : dist.rfind('-', build_dash - 1);
    // An empty version or build would print as `name==1.0=` and read back
    // without the build (found by fuzz_match_spec).
    if (version_dash == std::string_view::npos || version_dash == 0 ||
        build_dash == version_dash + 1 || build_dash + 1 == dist.size()) {
      fail("the package file name '" + filename + "' is not name-version-build", target);
    }
    // The name must be a package name too: a ':' printed as `name:x==1.0`
    // read back as a channel separator (fuzz finding).
    const std::string file_name_part = lowered(dist.substr(0, version_dash));
    if (!std::all_of(file_name_part.begin(), file_name_part.end(),
                     [](char c) { return is_lower_alnum(c) || is_name_separator(c); }) ||
        !is_valid_package_name(file_name_part)) {
      fail("the package file name '" + filename + "' does not start with a valid package name",
           target);
    }
    spec_.name_ = StringMatcher::exact(lowered(dist.substr(0, version_dash)),
                                       StringMatcher::Case::insensitive);
    set_version(std::string(dist.substr(version_dash + 1, build_dash - version_dash - 1)), target);
    // The same CEP 26 check as a written build: a ':' here printed as
    // `name==1.0=py39:_0` and read back as a channel separator (fuzz finding).
    const std::string_view file_build = dist.substr(build_dash + 1);
    if (!std::all_of(file_build.begin(), file_build.end(),
                     [](char c) { return c != '*' && is_build_char(c); })) {
      fail("the build string '" + std::string(file_build) + "' of the package file '" + filename +
               "' contains invalid characters (CEP 26: letters, digits, _ . +)",
           target);
    }
    spec_.build_ = StringMatcher::exact(file_build);

    auto& fields = extra();
    fields.fn = filename;
    // A package inside a subdir directory names its channel (the directory
    // above); conda then records channel and subdir, otherwise only url/fn.
    const auto subdir_slash = parent.rfind('/');
    const auto subdir = subdir_slash == std::string_view::npos ? std::string_view()
                                                               : parent.substr(subdir_slash + 1);
    const auto channel_url = parent.substr(0, std::min(subdir_slash, parent.size()));
    if (is_known_subdir(subdir) && channel_url.find("://") != std::string_view::npos &&
        !channel_url.ends_with(":/")) {
      auto parsed = resolve_channel(channel_url);
      Channel& channel = *parsed;
      // As for a `channel::` prefix: under the alias, whatever the scheme, the
      // channel is written by its name.
      std::string display = is_under_channel_alias(channel.base_url(), context_.channel_alias)
                                ? canonical_name_under_alias(channel.base_url())
                                : channel.canonical_name();
      fields.channel = ChannelMatcher::of(std::move(channel), std::move(display));
      fields.subdirs = {std::string(subdir)};
    } else {
      fields.identity_from_filename = true;
    }
    fields.url = std::move(url);
    if (hash.size() == 32) fields.md5 = lowered(hash);
    if (hash.size() == 64) fields.sha256 = lowered(hash);
  }

  std::string_view text_;
  Reporter reporter_;
  const ChannelContext& context_;
  ParseMode mode_;
  bool nameless_;
  int depth_;
  MatchSpec spec_;
  std::optional<MatchSpec::Extra> extra_;
};

MatchSpec MatchSpec::parse(std::string_view text, const ChannelContext& context, ParseMode mode) {
  return MatchSpecParser(text, context, mode, false, 0).parse();
}

MatchSpec MatchSpec::parse_nameless(std::string_view text, const ChannelContext& context,
                                    ParseMode mode) {
  return MatchSpecParser(text, context, mode, true, 0).parse();
}

std::optional<std::string> MatchSpec::extract_name(std::string_view text) {
  std::string_view body = spec_syntax::strip_comment(text);
  if (spec_syntax::names_package_file(body)) {
    // name-version-build.ext: the name is everything before the last two dashes.
    const auto dist = strip_package_extension(body.substr(body.find_last_of("/\\") + 1));
    const auto build_dash = dist.rfind('-');
    const auto version_dash =
        build_dash == 0 ? std::string_view::npos : dist.rfind('-', build_dash - 1);
    if (version_dash == std::string_view::npos || version_dash == 0) return std::nullopt;
    return lowered(dist.substr(0, version_dash));
  }
  if (const auto separator = body.rfind("::"); separator != std::string_view::npos) {
    body = body.substr(separator + 2);
  }
  body = trim(body);
  const auto name = body.substr(0, body.find_first_of(" \t=<>!~[("));
  if (name.empty()) return std::nullopt;
  return lowered(name);
}

}  // namespace gpuenv::specs
