#include "gpuenv/repodata/package_url.hpp"

#include <vector>

#include "gpuenv/specs/package_filename.hpp"

namespace gpuenv::repodata {
namespace {

std::string with_trailing_slash(std::string url) {
  if (url.empty() || url.back() != '/') url.push_back('/');
  return url;
}

bool has_scheme(std::string_view url) noexcept {
  const auto colon = url.find("://");
  if (colon == std::string_view::npos || colon == 0) return false;
  for (const char c : url.substr(0, colon)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// The scheme of a URL, lower-cased ("" when it has none).
std::string scheme_of(std::string_view url) {
  if (!has_scheme(url)) return {};
  std::string scheme(url.substr(0, url.find("://")));
  for (char& c : scheme) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return scheme;
}

bool is_remote_scheme(std::string_view scheme) noexcept { return scheme == "http" || scheme == "https"; }

// "scheme://host" of a URL ("file://" for file:///path).
std::string_view origin_of(std::string_view url) noexcept {
  const auto start = url.find("://");
  if (start == std::string_view::npos) return {};
  const auto path = url.find('/', start + 3);
  return path == std::string_view::npos ? url : url.substr(0, path);
}

// RFC 3986 dot-segment removal on a path that starts with '/'.
std::string normalize_path(std::string_view path) {
  std::vector<std::string_view> segments;
  std::size_t start = 1;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const auto segment = path.substr(start, end - start);
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (segment != "." && !(segment.empty() && end != path.size())) {
      segments.push_back(segment);
    }
    start = end + 1;
  }
  std::string result;
  for (const auto segment : segments) result.append("/").append(segment);
  return result.empty() ? "/" : result;
}

}  // namespace

std::string base_url_problem(std::string_view subdir_url, std::string_view base_url) {
  // A relative base_url stays on the subdir's own server.
  if (!has_scheme(base_url) || !is_remote_scheme(scheme_of(subdir_url))) return {};
  const std::string scheme = scheme_of(base_url);
  if (is_remote_scheme(scheme)) return {};
  return "its info.base_url '" + specs::printable(base_url) + "' is a " + specs::printable(scheme) +
         ":// URL, and a channel served over http(s) may only send clients to http:// or https:// URLs";
}

std::string package_directory_url(std::string_view subdir_url, std::string_view base_url) {
  if (base_url.empty() || !base_url_problem(subdir_url, base_url).empty()) {
    return with_trailing_slash(std::string(subdir_url));
  }
  if (has_scheme(base_url)) return with_trailing_slash(std::string(base_url));
  const std::string directory = with_trailing_slash(std::string(subdir_url));
  const std::string_view origin = origin_of(directory);
  if (origin.empty()) return with_trailing_slash(directory + std::string(base_url));
  const std::string_view directory_path = std::string_view(directory).substr(origin.size());
  const std::string path = base_url.front() == '/' ? std::string(base_url)
                                                   : std::string(directory_path) + std::string(base_url);
  return with_trailing_slash(std::string(origin) + normalize_path(path));
}

}  // namespace gpuenv::repodata
