#include "gpuenv/specs/url_credentials.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace gpuenv::specs {
namespace {

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return lower;
}

// A URL cut where the secrets go: scheme://[userinfo@]authority<path>.
struct UrlPieces {
  std::string_view scheme;
  std::string_view userinfo;   // without the '@'; empty when absent
  std::string_view authority;  // host[:port]
  std::string_view path;       // from the first '/', '?' or '#' on
};

std::optional<UrlPieces> cut(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return std::nullopt;
  UrlPieces pieces;
  pieces.scheme = url.substr(0, scheme_end);
  std::string_view rest = url.substr(scheme_end + 3);
  const auto path_start = std::min(rest.find_first_of("/?#"), rest.size());
  pieces.path = rest.substr(path_start);
  rest = rest.substr(0, path_start);
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    pieces.userinfo = rest.substr(0, at);
    rest.remove_prefix(at + 1);
  }
  pieces.authority = rest;
  return pieces;
}

// scheme://host:port, lowercased, with the scheme's default port spelled out,
// so https://Host and https://host:443 are one origin (RFC 6454).
std::string origin_of(const UrlPieces& pieces) {
  const std::string scheme = lowercase(pieces.scheme);
  std::string authority = lowercase(pieces.authority);
  const auto bracket = authority.rfind(']');  // an IPv6 literal holds ':' of its own
  const auto colon = authority.rfind(':');
  if (colon == std::string::npos || (bracket != std::string::npos && colon < bracket)) {
    if (scheme == "http") authority += ":80";
    if (scheme == "https") authority += ":443";
  }
  return scheme + "://" + authority;
}

// Whether `path` lies under the directory `base` ("/chan" holds "/chan/x", not "/chan2").
bool under(std::string_view path, std::string_view base) {
  return path.starts_with(base) && (path.size() == base.size() || base.empty() || base.back() == '/' ||
                                    path[base.size()] == '/');
}

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '~' ||
         c == '%' || c == '+';
}

// Where a URL found in free text ends: at white space, a quote, a bracket of
// the surrounding text or a control character.
bool ends_url(char c) {
  return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f || c == '"' || c == '\'' || c == '<' || c == '>' ||
         c == '`';
}

// One URL (scheme to end) with its secrets masked.
std::string mask_url(std::string_view url) {
  const auto pieces = cut(url);
  if (!pieces) return std::string(url);
  // A local path's `/t/<x>` is a directory, not a token.
  if (lowercase(pieces->scheme) == "file") return std::string(url);
  std::string masked = std::string(pieces->scheme) + "://" + std::string(pieces->authority);
  const std::string_view path = pieces->path;
  for (std::size_t i = 0; i < path.size();) {
    if (path.substr(i).starts_with("/t/")) {
      std::size_t end = i + 3;
      while (end < path.size() && is_token_char(path[end])) ++end;
      if (end > i + 3) {
        masked += "/t/<TOKEN>";
        i = end;
        continue;
      }
    }
    masked += path[i++];
  }
  return masked;
}

}  // namespace

std::string with_channel_credentials(std::string_view url, const std::vector<ChannelCredentials>& channels) {
  const auto pieces = cut(url);
  if (!pieces || !pieces->userinfo.empty() || pieces->path.starts_with("/t/")) return std::string(url);
  const std::string origin = origin_of(*pieces);
  const ChannelCredentials* chosen = nullptr;
  std::size_t chosen_prefix = 0;
  bool chosen_contains = false;
  for (const auto& channel : channels) {
    if (channel.user_password.empty() && channel.token.empty()) continue;
    const auto base = cut(channel.base_url);
    if (!base || origin_of(*base) != origin) continue;
    const bool contains = under(pieces->path, base->path);
    if (chosen == nullptr || (contains && (!chosen_contains || base->path.size() > chosen_prefix))) {
      chosen = &channel;
      chosen_prefix = base->path.size();
      chosen_contains = contains;
    }
  }
  if (chosen == nullptr) return std::string(url);
  std::string authenticated = std::string(pieces->scheme) + "://";
  if (!chosen->user_password.empty()) authenticated += chosen->user_password + "@";
  authenticated += pieces->authority;
  if (!chosen->token.empty()) authenticated += "/t/" + chosen->token;
  authenticated += pieces->path;
  return authenticated;
}

std::string mask_credentials(std::string_view text) {
  std::string masked;
  std::size_t copied = 0;
  for (auto found = text.find("://"); found != std::string_view::npos; found = text.find("://", copied)) {
    // The scheme runs back over letters, digits, '+', '-' and '.'.
    std::size_t start = found;
    while (start > copied && (std::isalnum(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '+' ||
                              text[start - 1] == '-' || text[start - 1] == '.')) {
      --start;
    }
    std::size_t end = found + 3;
    while (end < text.size() && !ends_url(text[end])) ++end;
    masked.append(text.substr(copied, start - copied));
    masked += start == found ? std::string(text.substr(start, end - start)) : mask_url(text.substr(start, end - start));
    copied = end;
  }
  masked.append(text.substr(copied));
  return masked;
}

}  // namespace gpuenv::specs
