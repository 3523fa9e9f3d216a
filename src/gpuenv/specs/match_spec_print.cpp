// conda's and rattler's printed forms of a MatchSpec.
#include <algorithm>

#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/match_spec_extra.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::specs {
namespace {

bool contains_any(std::string_view text, std::string_view characters) {
  return text.find_first_of(characters) != std::string_view::npos;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// conda's `['a', 'b']` for extras and flags.
std::string python_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'" + items[i] + "'";
  }
  return out + "]";
}

// conda quotes a bracket value with single quotes when it holds `, =`; a
// `#` (a comment outside quotes) or other white space must be quoted too for
// the text to read back the same.
std::string key_value(std::string_view key, std::string_view value) {
  std::string out(key);
  out += '=';
  if (contains_any(value, ", =[]'\"#\t\n\r\v\f")) {
    const char* quote = value.find('\'') == std::string_view::npos ? "'" : "\"";
    out.append(quote).append(value).append(quote);
  } else {
    out.append(value);
  }
  return out;
}

// conda reads a bracket version `==1.0,<2` as `1.0,<2` (_sanitize_version_str
// without a build), so a positional `x ==1.0,<2 3` printed in brackets as
// written would read back as other text. The first clause is written without
// its `==` (and the `.*` that `==` ignores): the same versions, stable text.
// A glob operand (`==1*`) would change meaning that way; it is put in
// parentheses instead, which the bracket reading leaves alone.
std::string readable_in_brackets(const std::string& text) {
  if (!text.starts_with("==")) return text;
  const auto clause_end = text.find_first_of(",|");
  if (clause_end == std::string::npos) return text;
  std::string_view operand = std::string_view(text).substr(2, clause_end - 2);
  if (operand.ends_with(".*")) operand.remove_suffix(2);
  if (operand.empty() || contains_any(operand, "*=<>!~()")) {
    return "(" + text.substr(0, clause_end) + ")" + text.substr(clause_end);
  }
  return std::string(operand) + text.substr(clause_end);
}

// A subdir that reads back as a path component: no glob, regex or list.
bool is_plain_subdir(std::string_view subdir) {
  return !subdir.empty() && !subdir.starts_with('^') &&
         std::all_of(subdir.begin(), subdir.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.';
         });
}

}  // namespace

// conda's MatchSpec.__str__ (CEP 29 appendix A).
class MatchSpecPrinter {
 public:
  explicit MatchSpecPrinter(const MatchSpec& spec) : spec_(spec) {}

  std::string conda_str() {
    const MatchSpec::Extra* extra = spec_.extra_.get();
    if (extra && extra->identity_from_filename) return url_only_str(*extra);

    const ChannelMatcher* channel = spec_.channel();
    const bool channel_exact = channel && channel->kind() == ChannelMatcher::Kind::channel;
    if (channel_exact) {
      out_ += channel->str();
    } else if (channel && channel->kind() == ChannelMatcher::Kind::pattern) {
      brackets_.push_back(key_value("channel", channel->str()));
    }
    if (!spec_.subdirs().empty()) {
      const std::string subdirs = spec_.subdir_str();
      // One subdir goes after the channel, as conda writes it
      // (`conda-forge/foo::x`); libmamba's lists and patterns stay in
      // brackets (a glob after the channel would read back as part of its
      // path: fuzz finding).
      if (channel_exact && spec_.subdirs().size() == 1 && is_plain_subdir(subdirs)) {
        out_ += "/" + subdirs;
      } else {
        brackets_.push_back(key_value("subdir", subdirs));
      }
    }
    out_ += out_.empty() ? "" : "::";
    out_ += spec_.name_.str();

    const bool version_exact = print_version();
    print_build(version_exact);
    print_other_fields(channel != nullptr);
    if (!brackets_.empty()) out_ += "[" + join(brackets_, ",") + "]";
    return std::move(out_);
  }

 private:
  // Returns whether the version was written as an exact `==` version. conda
  // decides on the text (`1.2.*` -> `=1.2`, `1.2` -> `==1.2`, anything with an
  // operator or a glob -> brackets); deciding on the parsed clause gives the
  // same text for every spec conda prints faithfully and stays readable back
  // for the ones it does not (`==1.8.*`, `*.13.1`).
  bool print_version() {
    if (!spec_.has_version()) return false;
    const VersionSpec& version = spec_.version_;
    const bool has_build = !spec_.build_.is_any();
    const auto op = version.single_operator();
    // A `*` inside the operand (`=py*`) would read back as a glob positionally.
    const auto operand = [&](const Version* value) {
      return value && value->original().find('*') == std::string_view::npos
                 ? std::optional<std::string>(value->original())
                 : std::nullopt;
    };
    if (op == VersionOperator::starts_with) {
      const auto prefix = version.prefix_version();
      if (const auto text = operand(prefix ? &*prefix : nullptr)) {
        out_ += "=" + *text;
        return false;
      }
    } else if (op == VersionOperator::equal) {
      if (const auto text = operand(version.single_version())) {
        out_ += "==" + *text;
        return true;
      }
    }
    const std::string text = readable_in_brackets(version.str());
    // conda's `=*.13` for the glob `*.13*`: read back, `=X` is `X*` again.
    if (op == VersionOperator::glob && !has_build && text.ends_with('*') && !text.ends_with(".*") &&
        !text.ends_with("**") && text.find_first_of("=<>!~,|") == std::string::npos) {
      out_ += "=" + text.substr(0, text.size() - 1);
      return false;
    }
    if (!has_build && text.find_first_of(",|") == std::string::npos &&
        (op == VersionOperator::not_equal || op == VersionOperator::not_starts_with ||
         op == VersionOperator::compatible)) {
      out_ += text;
    } else {
      brackets_.push_back("version='" + text + "'");
    }
    return false;
  }

  void print_build(bool version_exact) {
    if (spec_.build_.is_any()) {
      if (spec_.build_star_) brackets_.push_back("build=*");  // conda keeps a written `*`
      return;
    }
    const std::string& build = spec_.build_.str();
    if (contains_any(build, "><$^|,")) {
      brackets_.push_back("build='" + build + "'");
    } else if (build.find('*') != std::string::npos || !version_exact) {
      brackets_.push_back(key_value("build", build));
    } else {
      out_ += "=" + build;
    }
  }

  // The remaining fields in conda's FIELD_NAMES order, then the newer keys.
  void print_other_fields(bool has_channel) {
    const MatchSpec::Extra* extra = spec_.extra_.get();
    if (!spec_.build_number_.is_explicitly_free()) {
      brackets_.push_back(key_value("build_number", spec_.build_number_str()));
    }
    if (!extra) return;
    if (extra->track_features) {
      brackets_.push_back(key_value("track_features", join(*extra->track_features, " ")));
    }
    if (extra->features) brackets_.push_back(key_value("features", join(*extra->features, " ")));
    // A channel already says where the file is; a url makes fn redundant.
    if (!extra->url.empty() && !has_channel) brackets_.push_back(key_value("url", extra->url));
    if (!extra->md5.empty()) brackets_.push_back(key_value("md5", extra->md5));
    if (!extra->sha256.empty()) brackets_.push_back(key_value("sha256", extra->sha256));
    if (extra->license) brackets_.push_back(key_value("license", extra->license->str()));
    if (extra->license_family) {
      brackets_.push_back(key_value("license_family", extra->license_family->str()));
    }
    if (!extra->fn.empty() && extra->url.empty()) brackets_.push_back(key_value("fn", extra->fn));
    if (!extra->extras.empty()) brackets_.push_back("extras=" + python_list(extra->extras));
    if (!extra->flags.empty()) brackets_.push_back("flags=" + python_list(extra->flags));
    if (!extra->when.empty()) brackets_.push_back(key_value("when", extra->when));
  }

  // conda keeps only url and fn for a package URL that names no channel.
  std::string url_only_str(const MatchSpec::Extra& extra) {
    brackets_.push_back(key_value("url", extra.url));
    if (!extra.md5.empty()) brackets_.push_back(key_value("md5", extra.md5));
    if (!extra.sha256.empty()) brackets_.push_back(key_value("sha256", extra.sha256));
    return "*[" + join(brackets_, ",") + "]";
  }

  const MatchSpec& spec_;
  std::string out_;
  std::vector<std::string> brackets_;
};

std::string MatchSpec::str() const { return MatchSpecPrinter(*this).conda_str(); }

// conda's MatchSpec.conda_build_form: the exact name, then conda's version
// spec text (its VersionSpec.spec: `1.7*` is `1.7.*`) and the build, a
// written `*` included.
std::string MatchSpec::conda_build_form() const {
  const auto name = exact_name();
  if (!name) {
    throw SpecError("match spec", original_, "conda_build_form() needs an exact package name");
  }
  std::string out = *name;
  const std::string version = has_version() ? version_.str() : version_star_ ? "*" : "";
  const std::string build = !build_.is_any() ? build_.str() : build_star_ ? "*" : "";
  if (!build.empty()) {
    out.append(" ").append(version.empty() ? "*" : version).append(" ").append(build);
  } else if (!version.empty()) {
    out.append(" ").append(version);
  }
  return out;
}

// conda's MatchSpec.conda_env_form: str() without the channel, its first
// `==` written `=`.
std::string MatchSpec::conda_env_form() const {
  std::string out = str();
  if (const auto separator = out.find("::"); separator != std::string::npos) {
    out.erase(0, separator + 2);
  }
  if (const auto equals = out.find("=="); equals != std::string::npos) out.erase(equals, 1);
  return out;
}

}  // namespace gpuenv::specs
