#include "gpuenv/specs/channel.hpp"

#include <algorithm>
#include <cctype>

#include "gpuenv/specs/match_spec_syntax.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/spec_parsing.hpp"

namespace gpuenv::specs {

using spec_syntax::trim;

namespace {

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view strip_trailing_slashes(std::string_view text) {
  while (text.size() > 1 && (text.back() == '/' || text.back() == '\\')) text.remove_suffix(1);
  return text;
}

bool is_known_subdir(std::string_view text) {
  const auto subdirs = known_subdirs();
  return std::find(subdirs.begin(), subdirs.end(), text) != subdirs.end();
}

// The pieces of a URL the channel logic needs; `path` starts with '/' or is empty.
struct UrlParts {
  std::string scheme;
  std::string credentials;  // "user:password", without the '@'
  std::string host;         // host[:port]
  std::string path;
};

UrlParts split_url(std::string_view url) {
  UrlParts parts;
  const auto scheme_end = url.find("://");
  parts.scheme = std::string(url.substr(0, scheme_end));
  std::transform(parts.scheme.begin(), parts.scheme.end(), parts.scheme.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  std::string_view rest = url.substr(scheme_end + 3);
  const auto path_start = rest.find('/');
  std::string_view authority = rest.substr(0, path_start);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    parts.credentials = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  parts.host = std::string(authority);
  if (path_start != std::string_view::npos) {
    parts.path = std::string(strip_trailing_slashes(rest.substr(path_start)));
    if (parts.path == "/") parts.path.clear();
  }
  return parts;
}

std::string join_base(const UrlParts& parts) {
  return parts.scheme + "://" + parts.host + parts.path;
}

// The last '/'-separated component of `path` and what precedes it.
std::pair<std::string_view, std::string_view> split_last_component(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return {std::string_view(), path};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

// Removes `count` trailing components (separated by '/' or '\') from a path as
// the user wrote it, so a local channel keeps its spelling in name().
std::string_view drop_trailing_components(std::string_view text, int count) {
  text = strip_trailing_slashes(text);
  for (int i = 0; i < count; ++i) {
    const auto separator = text.find_last_of("/\\");
    if (separator == std::string_view::npos) return text;
    text = strip_trailing_slashes(text.substr(0, separator));
  }
  return text;
}

// conda's channel names: letters, digits and `_ . + -`, '/'-separated.
bool is_valid_channel_name(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.back() == '/') return false;
  if (name.find("//") != std::string_view::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return is_ascii_alpha(c) || is_ascii_digit(c) || c == '_' || c == '.' || c == '+' || c == '-' ||
           c == '/';
  });
}

std::string normalized_url(std::string_view url) {
  const auto parts = split_url(trim(url));
  return join_base(parts);
}

bool starts_with_component(std::string_view text, std::string_view prefix) {
  return text == prefix ||
         (text.size() > prefix.size() && text.starts_with(prefix) && text[prefix.size()] == '/');
}

}  // namespace

bool has_url_scheme(std::string_view text) noexcept {
  const auto separator = text.find("://");
  if (separator == std::string_view::npos || separator == 0) return false;
  if (!is_ascii_alpha(text.front())) return false;
  return std::all_of(
      text.begin(), text.begin() + static_cast<std::ptrdiff_t>(separator), [](char c) {
        return is_ascii_alpha(c) || is_ascii_digit(c) || c == '+' || c == '-' || c == '.';
      });
}

bool looks_like_path(std::string_view text) noexcept {
  if (text.empty()) return false;
  if (text.front() == '/' || text.front() == '\\') return true;
  if (text.starts_with("./") || text.starts_with(".\\") || text.starts_with("../") ||
      text.starts_with("..\\") || text == "." || text == "..") {
    return true;
  }
  if (text == "~" || text.starts_with("~/")) return true;
  // Windows drives: C:, C:\x, C:/x (CEP 26).
  return text.size() >= 2 && is_ascii_alpha(text[0]) && text[1] == ':' &&
         (text.size() == 2 || text[2] == '\\' || text[2] == '/');
}

std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int high = hex(text[i + 1]);
      const int low = hex(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::string path_to_file_url(std::string_view path, const ChannelContext& context) {
  std::string text(trim(path));
  std::replace(text.begin(), text.end(), '\\', '/');
  if ((text == "~" || text.starts_with("~/")) && !context.home_directory.empty()) {
    text = std::string(strip_trailing_slashes(context.home_directory)) + text.substr(1);
  } else if (!text.empty() && text.front() != '/' && text.front() != '~' &&
             !(text.size() >= 2 && is_ascii_alpha(text[0]) && text[1] == ':') &&
             !context.current_directory.empty()) {
    text = std::string(strip_trailing_slashes(context.current_directory)) + "/" + text;
  }
  const bool drive = text.size() >= 2 && is_ascii_alpha(text[0]) && text[1] == ':';
  const bool absolute = text.starts_with('/');
  // Without the directory it is relative to, keep the path as written.
  if (!absolute && !drive) return "file://" + text;
  // Resolve "." and ".." components so equal directories give equal URLs.
  std::vector<std::string_view> components;
  std::string_view rest(text);
  while (!rest.empty()) {
    const auto slash = rest.find('/');
    const auto component = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (component.empty() || component == ".") continue;
    if (component == ".." && !components.empty() && components.back() != "..") {
      components.pop_back();
      continue;
    }
    if (component == "..") continue;  // above the root
    components.push_back(component);
  }
  std::string url = "file://";
  url += '/';  // file:///srv/x and file:///C:/x alike
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (i > 0) url += '/';
    url += components[i];
  }
  return url;
}

// Turns text into a Channel; one instance per Channel::parse call.
class ChannelResolver {
 public:
  ChannelResolver(std::string_view text, const ChannelContext& context)
      : text_(trim(text)), context_(context) {}

  detail::Parsed<Channel> resolve(int depth = 0) {
    channel_.original_ = std::string(text_);
    if (text_.empty()) return failure("a channel cannot be empty");
    detail::Failure failed;
    if (has_url_scheme(text_)) {
      failed = from_url(text_);
    } else if (looks_like_path(text_)) {
      failed = from_path();
    } else {
      failed = from_name(depth);
    }
    if (failed) return std::move(*failed);
    return std::move(channel_);
  }

 private:
  SpecError failure(std::string_view reason) const { return SpecError("channel", text_, reason); }

  detail::Failure from_path() {
    if (auto failed = from_url(path_to_file_url(text_, context_))) return failed;
    const int dropped = (channel_.package_filename_.empty() ? 0 : 1) + (channel_.platform_ ? 1 : 0);
    channel_.name_ = std::string(drop_trailing_components(text_, dropped));
    return std::nullopt;
  }

  detail::Failure from_url(std::string_view url) {
    auto parts = split_url(url);
    if (parts.host.empty() && parts.path.empty()) return failure("the URL names no channel");
    // `https://host/a/b://c` would name the channel `a/b://c`, which reads
    // back as a URL of its own (fuzz finding): one scheme per URL.
    if (parts.path.find("://") != std::string::npos) return failure("the URL holds '://' twice");
    // Brackets would read back as libmamba's `channel[subdir]` and control
    // characters cannot be printed back faithfully (fuzz findings). A host
    // may only use brackets for an IPv6 literal: `http://[::1]:8000`.
    if (std::any_of(url.begin(), url.end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
        })) {
      return failure("the URL holds a control character");
    }
    // `https://alias//x` would name the channel `/x`, which reads back as a
    // local path (fuzz finding).
    if (parts.path.find("//") != std::string::npos) return failure("the URL's path has an empty part ('//')");
    if (parts.path.find_first_of("[]") != std::string::npos) {
      return failure("'[' and ']' cannot appear in a channel URL's path: percent-encode them as %5B and %5D");
    }
    if (const auto close = parts.host.find(']');
        parts.host.find_first_of("[]") != std::string::npos &&
        (!parts.host.starts_with('[') || close == std::string::npos ||
         parts.host.find_first_of("[]", 1) != close ||
         (close + 1 < parts.host.size() && parts.host[close + 1] != ':'))) {
      return failure("'[' and ']' in a URL's host only enclose an IPv6 address, as in http://[::1]:8000");
    }
    channel_.credentials_ = parts.credentials;
    if (parts.path.starts_with("/t/")) {
      const auto token_end = parts.path.find('/', 3);
      channel_.token_ =
          parts.path.substr(3, token_end == std::string::npos ? token_end : token_end - 3);
      parts.path = token_end == std::string::npos ? std::string() : parts.path.substr(token_end);
      // A second /t/<x> would be read as the token once the URL is printed
      // without the first one, changing the channel (fuzz finding).
      if (parts.path.starts_with("/t/")) return failure("the URL has more than one /t/<token> part");
    }
    if (auto [head, last] = split_last_component(parts.path); is_package_file_name(last)) {
      channel_.package_filename_ = percent_decode(last);
      parts.path = std::string(head);
    }
    if (auto [head, last] = split_last_component(parts.path); !head.empty() || !last.empty()) {
      if (is_known_subdir(last)) {
        channel_.platform_ = std::string(last);
        parts.path = std::string(head);
      }
    }
    const std::string base = join_base(parts);
    channel_.base_urls_ = {base};
    name_from_base_url(base, parts);
    return std::nullopt;
  }

  // conda's rules for naming a channel given by URL: a default channel, a
  // custom channel, a channel under the alias, or host-relative path.
  void name_from_base_url(const std::string& base, const UrlParts& parts) {
    for (const auto& default_url : context_.default_channels) {
      const auto normalized = normalized_url(default_url);
      if (base == normalized) {
        set_names(std::string(trim_slashes(split_url(normalized).path)), "defaults");
        return;
      }
    }
    for (const auto& [custom_name, prefix] : context_.custom_channels) {
      const auto location = normalized_url(prefix);
      if (starts_with_component(base, location + "/" + custom_name)) {
        const auto name = base.substr(location.size() + 1);
        set_names(name, name);
        return;
      }
    }
    const auto alias = normalized_url(context_.channel_alias);
    if (base.size() > alias.size() + 1 && starts_with_component(base, alias)) {
      const auto name = base.substr(alias.size() + 1);
      set_names(name, name);
      return;
    }
    // Channels elsewhere are named by their path on the host; a file:// URL
    // has no host to be relative to, so its whole URL is its name.
    if (parts.scheme == "file") {
      set_names(base, base);
    } else {
      set_names(std::string(trim_slashes(parts.path)), base);
    }
  }

  detail::Failure from_name(int depth) {
    std::string_view name = strip_trailing_slashes(text_);
    if (!is_valid_channel_name(name)) {
      return failure("not a channel name, URL or path (names use letters, digits and _ . + - /)");
    }
    if (auto [head, last] = split_last_component(name); !head.empty() && is_known_subdir(last)) {
      channel_.platform_ = std::string(last);
      name = head;
    }
    if (name == "defaults") return from_members(name, context_.default_channels, depth);
    if (const auto multi = context_.custom_multichannels.find(std::string(name));
        multi != context_.custom_multichannels.end()) {
      return from_members(name, multi->second, depth);
    }
    for (const auto& default_url : context_.default_channels) {
      const auto parts = split_url(normalized_url(default_url));
      const auto default_name = trim_slashes(parts.path);
      if (!default_name.empty() && starts_with_component(name, default_name)) {
        channel_.base_urls_ = {parts.scheme + "://" + parts.host + "/" + std::string(name)};
        set_names(std::string(name), name == default_name ? "defaults" : std::string(name));
        return std::nullopt;
      }
    }
    for (const auto& [custom_name, prefix] : context_.custom_channels) {
      if (starts_with_component(name, custom_name)) {
        channel_.base_urls_ = {normalized_url(prefix) + "/" + std::string(name)};
        set_names(std::string(name), std::string(name));
        return std::nullopt;
      }
    }
    channel_.base_urls_ = {normalized_url(context_.channel_alias) + "/" + std::string(name)};
    set_names(std::string(name), std::string(name));
    return std::nullopt;
  }

  detail::Failure from_members(std::string_view multichannel_name,
                               const std::vector<std::string>& members, int depth) {
    // A multichannel naming itself (or another multichannel forever) would
    // never end; conda does not nest them either.
    if (depth > 0) return failure("a multichannel cannot contain another multichannel");
    if (members.empty()) return failure("the multichannel has no channels");
    const std::string name(multichannel_name);
    channel_.multichannel_ = true;
    channel_.name_ = name;
    channel_.canonical_name_ = name;
    channel_.member_names_ = {name};
    for (const auto& member : members) {
      auto resolved = ChannelResolver(member, context_).resolve(depth + 1);
      if (!resolved) return resolved.error();
      channel_.base_urls_.push_back(resolved->base_url());
      channel_.member_names_.push_back(resolved->name());
    }
    return std::nullopt;
  }

  void set_names(std::string name, std::string canonical) {
    channel_.name_ = std::move(name);
    channel_.canonical_name_ = std::move(canonical);
    channel_.member_names_ = {channel_.name_};
    if (channel_.canonical_name_ != channel_.name_ && !has_url_scheme(channel_.canonical_name_)) {
      channel_.member_names_.push_back(channel_.canonical_name_);
    }
  }

  static std::string_view trim_slashes(std::string_view text) {
    while (!text.empty() && text.front() == '/') text.remove_prefix(1);
    while (!text.empty() && text.back() == '/') text.remove_suffix(1);
    return text;
  }

  std::string_view text_;
  const ChannelContext& context_;
  Channel channel_;
};

Channel Channel::parse(std::string_view text, const ChannelContext& context) {
  return ChannelResolver(text, context).resolve().value_or_throw();
}

detail::Parsed<Channel> detail::parse_channel(std::string_view text, const ChannelContext& context) {
  return ChannelResolver(text, context).resolve();
}

std::string Channel::url_for(std::string_view subdir) const {
  return base_url() + "/" + std::string(subdir);
}

std::vector<std::string> Channel::urls_for(std::string_view subdir) const {
  std::vector<std::string> urls;
  urls.reserve(base_urls_.size());
  for (const auto& base : base_urls_) urls.push_back(base + "/" + std::string(subdir));
  return urls;
}

std::string Channel::authenticated_url_for(std::string_view subdir) const {
  const auto& base = base_url();
  const auto scheme_end = base.find("://") + 3;
  std::string url = base.substr(0, scheme_end);
  if (!credentials_.empty()) url += credentials_ + "@";
  const auto path_start = base.find('/', scheme_end);
  url += base.substr(scheme_end,
                     path_start == std::string::npos ? path_start : path_start - scheme_end);
  if (!token_.empty()) url += "/t/" + token_;
  if (path_start != std::string::npos) url += base.substr(path_start);
  return url + "/" + std::string(subdir);
}

bool Channel::contains_record_channel(std::string_view record_channel) const {
  record_channel = trim(record_channel);
  if (record_channel.empty()) return false;
  if (has_url_scheme(record_channel)) {
    // Fast path for what repodata loaders store: a base URL, or one with its subdir.
    for (const auto& base : base_urls_) {
      if (!record_channel.starts_with(base)) continue;
      const auto rest = strip_trailing_slashes(record_channel.substr(base.size()));
      if (rest.empty() || rest == "/" || (rest.front() == '/' && is_known_subdir(rest.substr(1)))) {
        return true;
      }
    }
    // Read it with an empty context: only the URL's own shape matters here.
    // A record channel that is no channel URL (a damaged record) is not this one.
    const auto other = ChannelResolver(record_channel, ChannelContext{}).resolve();
    return other && std::find(base_urls_.begin(), base_urls_.end(), other->base_url()) != base_urls_.end();
  }
  std::string_view name = strip_trailing_slashes(record_channel);
  if (auto [head, last] = split_last_component(name); !head.empty() && is_known_subdir(last)) {
    name = head;
  }
  return std::find(member_names_.begin(), member_names_.end(), name) != member_names_.end();
}

}  // namespace gpuenv::specs
