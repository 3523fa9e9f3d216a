// conda's MatchSpec query language (CEP 29, conda.models.match_spec).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/specs/build_number_spec.hpp"
#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/package_record.hpp"
#include "gpuenv/specs/string_matcher.hpp"
#include "gpuenv/specs/version_spec.hpp"

namespace gpuenv::specs {

// The channel constraint of a spec: a channel (matched by where a record comes
// from), a glob or regex over channel names, or `*`.
class ChannelMatcher {
 public:
  enum class Kind : std::uint8_t { any, pattern, channel };

  static ChannelMatcher any();
  static ChannelMatcher pattern(StringMatcher pattern);
  // `display` is how conda prints it: "defaults", "conda-forge", a URL.
  static ChannelMatcher of(Channel channel, std::string display);

  Kind kind() const noexcept { return kind_; }
  // The text conda prints ("conda-forge", "defaults", a URL, "*", "conda-*").
  const std::string& str() const noexcept { return display_; }
  // For Kind::channel; nullptr otherwise.
  const Channel* channel() const noexcept { return channel_ ? &*channel_ : nullptr; }
  bool matches(std::string_view record_channel) const;

  friend bool operator==(const ChannelMatcher& a, const ChannelMatcher& b) noexcept {
    return a.kind_ == b.kind_ && a.display_ == b.display_ && a.channel_ == b.channel_;
  }

 private:
  Kind kind_ = Kind::any;
  std::string display_ = "*";
  std::optional<StringMatcher> pattern_;
  std::optional<Channel> channel_;
};

// A parsed MatchSpec. Immutable: built by parse(), cheap to copy (the rarely
// used fields live in one shared block), and matches() never allocates for
// the usual name / version / build / build_number specs.
//
// Reading follows conda (conda/models/match_spec.py, CEP 29): keyword values
// in brackets override positional ones (the name excepted), `name=1.2` is
// `1.2*`, `name=1.2=build` and `name 1.2 build` are `==1.2`. libmamba's and
// rattler's printed forms, which only the conformance tests compare, live in
// tests/unit/specs/support.
class MatchSpec {
 public:
  // The spec matching every package (`*`).
  MatchSpec();

  // Throws SpecError naming the text and the column of the problem. Channel
  // names, `~` and relative paths resolve with `context`. ParseMode::strict
  // adds rattler's strict checks (no `name=1.0=build`, no bare `1.2` version,
  // no inner globs, no `=` with a glob); lenient reads versions like rattler's
  // lenient mode. Either way the meaning of an accepted spec is conda's.
  static MatchSpec parse(std::string_view text, const ChannelContext& context = {},
                         ParseMode mode = ParseMode::conda);
  static MatchSpec parse(std::string_view text, ParseMode mode) {
    return parse(text, ChannelContext{}, mode);
  }
  // A spec without a name (rattler's NamelessMatchSpec): `>=1.2 py*`,
  // `==3.9[subdir=linux-64]`, or a package URL.
  static MatchSpec parse_nameless(std::string_view text, const ChannelContext& context = {},
                                  ParseMode mode = ParseMode::conda);
  // The lower-cased package name at the start of a spec, without parsing the
  // rest (libmamba's extraction); nullopt when the text starts with no name.
  static std::optional<std::string> extract_name(std::string_view text);

  // ---- the fields -----------------------------------------------------------
  // Lower-cased; `*` when any name matches.
  const StringMatcher& name() const noexcept { return name_; }
  // The free spec when the version is unconstrained.
  const VersionSpec& version() const noexcept { return version_; }
  bool has_version() const noexcept { return !version_text_.empty(); }
  // conda's raw version text (get_raw_value): `1.8*` for `numpy=1.8`,
  // `>=1.8,<2|1.9`; "*" when free.
  std::string_view version_text() const noexcept {
    return version_text_.empty() ? std::string_view("*") : std::string_view(version_text_);
  }
  // conda keeps a version or build written as `*` (`dask *`, `x 1.0 *`):
  // it constrains nothing, but counts for strictness() and is printed by
  // conda_build_form() / str(). version() and build() are free then.
  bool version_written_as_star() const noexcept { return version_star_; }
  bool build_written_as_star() const noexcept { return build_star_; }
  // `*` (StringMatcher::is_any) when unconstrained.
  const StringMatcher& build() const noexcept { return build_; }
  const BuildNumberSpec& build_number() const noexcept { return build_number_; }
  // As conda prints it: the text written (`=0`), or build_number().str().
  std::string build_number_str() const;
  // nullptr when the spec names no channel.
  const ChannelMatcher* channel() const noexcept;
  // Allowed subdirs (one usually; libmamba's comma list allows several); empty: any.
  const std::vector<std::string>& subdirs() const noexcept;
  // The subdirs joined with ',' as written back; empty when any.
  std::string subdir_str() const;
  std::string_view md5() const noexcept;
  std::string_view sha256() const noexcept;
  std::string_view fn() const noexcept;
  std::string_view url() const noexcept;
  const StringMatcher* license() const noexcept;
  const StringMatcher* license_family() const noexcept;
  // nullptr when not constrained; otherwise sorted and unique.
  const std::vector<std::string>* track_features() const noexcept;
  const std::vector<std::string>* features() const noexcept;
  // Optional-dependency groups and flags (conda's newer `extras=`/`flags=`).
  const std::vector<std::string>& extras() const noexcept;
  const std::vector<std::string>& flags() const noexcept;
  // The condition of a conditional dependency (`when=__win`); empty if none.
  std::string_view when() const noexcept;
  // conda's legacy `(optional)` / `(target=...)` section.
  bool optional() const noexcept;
  std::string_view target() const noexcept;
  // The namespace between the channel and the name (`conda-forge:pypi:pkg`);
  // parsed and ignored by matching, as CEP 29 asks.
  std::string_view name_space() const noexcept;
  // The text parsed, verbatim.
  const std::string& original() const noexcept { return original_; }

  // ---- conda's derived properties ------------------------------------------
  // conda's get_exact_value(): the value when the field allows one value only.
  std::optional<std::string> exact_name() const;
  std::optional<std::string> exact_version() const;
  std::optional<std::string> exact_build() const;
  // conda-build's strictness: 1 name only, 2 name and version, 3 anything more.
  int strictness() const noexcept;
  // conda's is_name_only_spec: an exact name and nothing else.
  bool is_name_only() const noexcept;
  // The spec names a package file (a URL, path or fn).
  bool is_file() const noexcept;
  // libmamba's is_simple(): a name, a simple version (at most two ordered
  // clauses, no glob), a build glob, nothing else; what libsolv reads natively.
  bool is_simple() const;
  // libmamba's is_only_package_name(): an exact name, nothing else.
  bool is_only_package_name() const;

  bool matches(const PackageRecord& record) const;

  // ---- printers --------------------------------------------------------------
  // conda's canonical str(MatchSpec) (CEP 29 appendix A).
  std::string str() const;
  // conda's conda_build_form(), what recipe rendering writes: `name version
  // build` with conda's normalized version (`numpy 1.7*` -> `numpy 1.7.*`).
  // Throws SpecError when the name is not exact (`py*`), as conda raises.
  std::string conda_build_form() const;
  // conda's conda_env_form(), what `env export` writes: str() without the
  // channel, its first `==` written `=` (`jpeg 9*` -> `jpeg=9`,
  // `bar>=1` -> `bar[version='>=1']`).
  std::string conda_env_form() const;

  // Same fields with the same constraints (the original text is not compared).
  friend bool operator==(const MatchSpec& a, const MatchSpec& b) noexcept;

 private:
  struct Extra;
  friend class MatchSpecParser;
  friend class MatchSpecPrinter;

  StringMatcher name_;
  VersionSpec version_;
  std::string version_text_;  // empty when free
  StringMatcher build_;
  BuildNumberSpec build_number_;
  // Printing memory only: not compared by operator== (`x *` is `x`).
  bool version_star_ = false;
  bool build_star_ = false;
  std::shared_ptr<const Extra> extra_;  // null when every rare field is unset
  std::string original_;
};

}  // namespace gpuenv::specs
