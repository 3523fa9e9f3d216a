// MatchSpec fields, derived properties and matching. Parsing is in
// match_spec_parse.cpp, printing in match_spec_print.cpp.
#include "gpuenv/specs/match_spec.hpp"

#include <algorithm>

#include "gpuenv/specs/match_spec_extra.hpp"
#include "gpuenv/specs/match_spec_syntax.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/spec_parsing.hpp"

namespace gpuenv::specs {
namespace {

const std::vector<std::string>& no_strings() {
  static const std::vector<std::string> empty;
  return empty;
}

// Both sorted and unique after PackageRecord::set_*; a record filled by hand
// may not be, so compare as sets.
bool same_feature_set(const std::vector<std::string>& spec,
                      const std::vector<std::string>& record) {
  if (std::is_sorted(record.begin(), record.end()) &&
      std::adjacent_find(record.begin(), record.end()) == record.end()) {
    return spec == record;
  }
  std::vector<std::string> normalized = record;
  std::sort(normalized.begin(), normalized.end());
  normalized.erase(std::unique(normalized.begin(), normalized.end()), normalized.end());
  return spec == normalized;
}

}  // namespace

// ---- ChannelMatcher -----------------------------------------------------------

ChannelMatcher ChannelMatcher::any() { return ChannelMatcher(); }

ChannelMatcher ChannelMatcher::pattern(StringMatcher pattern) {
  ChannelMatcher matcher;
  matcher.kind_ = Kind::pattern;
  matcher.display_ = pattern.str();
  matcher.pattern_ = std::move(pattern);
  return matcher;
}

ChannelMatcher ChannelMatcher::of(Channel channel, std::string display) {
  ChannelMatcher matcher;
  matcher.kind_ = Kind::channel;
  matcher.display_ = std::move(display);
  matcher.channel_ = std::move(channel);
  return matcher;
}

bool ChannelMatcher::matches(std::string_view record_channel) const {
  switch (kind_) {
    case Kind::any:
      return true;
    case Kind::channel:
      return channel_->contains_record_channel(record_channel);
    case Kind::pattern:
      if (pattern_->matches(record_channel)) return true;
      // conda matches patterns against the record channel's canonical name,
      // so `conda-*` matches https://conda.anaconda.org/conda-forge/linux-64.
      if (has_url_scheme(record_channel)) {
        const auto channel = detail::parse_channel(record_channel, ChannelContext{});
        return channel && pattern_->matches(channel->canonical_name());
      }
      return false;
  }
  return false;
}

// ---- fields ---------------------------------------------------------------------

MatchSpec::MatchSpec() = default;

const ChannelMatcher* MatchSpec::channel() const noexcept {
  return extra_ && extra_->channel ? &*extra_->channel : nullptr;
}
const std::vector<std::string>& MatchSpec::subdirs() const noexcept {
  return extra_ ? extra_->subdirs : no_strings();
}
std::string MatchSpec::subdir_str() const {
  std::string out;
  for (const auto& subdir : subdirs()) {
    if (!out.empty()) out += ',';
    out += subdir;
  }
  return out;
}
std::string MatchSpec::build_number_str() const {
  if (extra_ && !extra_->build_number_written.text.empty()) return extra_->build_number_written.text;
  return build_number_.str();
}
std::string_view MatchSpec::md5() const noexcept {
  return extra_ ? extra_->md5 : std::string_view();
}
std::string_view MatchSpec::sha256() const noexcept {
  return extra_ ? extra_->sha256 : std::string_view();
}
std::string_view MatchSpec::fn() const noexcept { return extra_ ? extra_->fn : std::string_view(); }
std::string_view MatchSpec::url() const noexcept {
  return extra_ ? extra_->url : std::string_view();
}
const StringMatcher* MatchSpec::license() const noexcept {
  return extra_ && extra_->license ? &*extra_->license : nullptr;
}
const StringMatcher* MatchSpec::license_family() const noexcept {
  return extra_ && extra_->license_family ? &*extra_->license_family : nullptr;
}
const std::vector<std::string>* MatchSpec::track_features() const noexcept {
  return extra_ && extra_->track_features ? &*extra_->track_features : nullptr;
}
const std::vector<std::string>* MatchSpec::features() const noexcept {
  return extra_ && extra_->features ? &*extra_->features : nullptr;
}
const std::vector<std::string>& MatchSpec::extras() const noexcept {
  return extra_ ? extra_->extras : no_strings();
}
const std::vector<std::string>& MatchSpec::flags() const noexcept {
  return extra_ ? extra_->flags : no_strings();
}
std::string_view MatchSpec::when() const noexcept {
  return extra_ ? extra_->when : std::string_view();
}
bool MatchSpec::optional() const noexcept { return extra_ && extra_->optional; }
std::string_view MatchSpec::target() const noexcept {
  return extra_ ? extra_->target : std::string_view();
}
std::string_view MatchSpec::name_space() const noexcept {
  return extra_ ? extra_->name_space : std::string_view();
}

// ---- derived properties -----------------------------------------------------------

std::optional<std::string> MatchSpec::exact_name() const {
  if (const auto value = name_.exact_value()) return std::string(*value);
  return std::nullopt;
}

std::optional<std::string> MatchSpec::exact_version() const {
  if (!has_version() || !version_.is_exact()) return std::nullopt;
  std::string_view text = version_text_;
  if (text.starts_with("==")) text.remove_prefix(2);
  return std::string(text);
}

std::optional<std::string> MatchSpec::exact_build() const {
  if (const auto value = build_.exact_value()) return std::string(*value);
  return std::nullopt;
}

int MatchSpec::strictness() const noexcept {
  // conda counts its match components: the name always, then every field set.
  // A written `*` version or build is a component for conda (`dask *` is 2).
  const bool version_given = has_version() || version_star_;
  const bool build_given = !build_.is_any() || build_star_;
  int components = 1 + (version_given ? 1 : 0) + (build_given ? 1 : 0) +
                   (build_number_.is_explicitly_free() ? 0 : 1);
  if (extra_) {
    const Extra& e = *extra_;
    components += (e.channel ? 1 : 0) + (e.subdirs.empty() ? 0 : 1) + (e.md5.empty() ? 0 : 1) +
                  (e.sha256.empty() ? 0 : 1) + (e.fn.empty() ? 0 : 1) + (e.url.empty() ? 0 : 1) +
                  (e.license ? 1 : 0) + (e.license_family ? 1 : 0) + (e.track_features ? 1 : 0) +
                  (e.features ? 1 : 0) + (e.extras.empty() ? 0 : 1) + (e.flags.empty() ? 0 : 1) +
                  (e.when.empty() ? 0 : 1);
  }
  const int positional = 1 + (version_given ? 1 : 0) + (build_given ? 1 : 0);
  if (positional < components) return 3;
  if (!name_.is_exact() || build_given) return 3;
  return version_given ? 2 : 1;
}

bool MatchSpec::is_name_only() const noexcept { return name_.is_exact() && strictness() == 1; }

bool MatchSpec::is_file() const noexcept { return !fn().empty() || !url().empty(); }

bool MatchSpec::is_simple() const {
  if (!build_number_.is_explicitly_free() || build_.is_regex()) return false;
  if (extra_) {
    const Extra& e = *extra_;
    if (e.channel || !e.subdirs.empty() || !e.name_space.empty() || !e.md5.empty() ||
        !e.sha256.empty() || !e.fn.empty() || !e.url.empty() || e.license || e.license_family ||
        e.track_features || e.features) {
      return false;
    }
  }
  if (!has_version()) return true;
  if (version_.has_glob() || version_.has_regex()) return false;
  // What libsolv reads natively: one clause, or two joined by `,` (`>=3,<4`),
  // none of them `*`.
  const auto clauses = spec_syntax::version_clauses(version_text_);
  if (clauses.size() == 1) return true;
  return clauses.size() == 2 && version_text_.find_first_of("|()") == std::string::npos &&
         std::none_of(clauses.begin(), clauses.end(), [](std::string_view clause) {
           return clause.find('*') != std::string_view::npos;
         });
}

bool MatchSpec::is_only_package_name() const {
  return name_.is_exact() && !has_version() && build_.is_any() && is_simple();
}

// ---- matching -----------------------------------------------------------------------

bool MatchSpec::matches(const PackageRecord& record) const {
  if (!name_.matches(record.name)) return false;
  if (has_version() && (!record.parsed_version || !version_.contains(*record.parsed_version))) {
    return false;
  }
  if (!build_.matches(record.build)) return false;
  if (!build_number_.contains(record.build_number)) return false;
  if (!extra_) return true;

  const Extra& e = *extra_;
  if (e.channel && !e.channel->matches(record.channel)) return false;
  if (!e.subdirs.empty() &&
      std::find(e.subdirs.begin(), e.subdirs.end(), record.subdir) == e.subdirs.end()) {
    return false;
  }
  if (!e.md5.empty() && e.md5 != record.md5) return false;
  if (!e.sha256.empty() && e.sha256 != record.sha256) return false;
  if (!e.fn.empty() && e.fn != record.fn) return false;
  if (!e.url.empty() && e.url != record.url) return false;
  if (e.license && !e.license->matches(record.license)) return false;
  if (e.license_family && !e.license_family->matches(record.license_family)) return false;
  if (e.track_features && !same_feature_set(*e.track_features, record.track_features)) return false;
  if (e.features && !same_feature_set(*e.features, record.features)) return false;
  // Every flag the spec asks for (a glob: `blas:*`) must be among the record's.
  for (const auto& flag : e.flags) {
    if (std::none_of(record.flags.begin(), record.flags.end(),
                     [&](const std::string& have) { return glob_matches(flag, have); })) {
      return false;
    }
  }
  return true;
}

bool operator==(const MatchSpec& a, const MatchSpec& b) noexcept {
  if (!(a.name_ == b.name_ && a.version_ == b.version_ && a.build_ == b.build_ &&
        a.build_number_ == b.build_number_)) {
    return false;
  }
  if (a.extra_ == b.extra_) return true;
  static const MatchSpec::Extra none;
  return (a.extra_ ? *a.extra_ : none) == (b.extra_ ? *b.extra_ : none);
}

}  // namespace gpuenv::specs
