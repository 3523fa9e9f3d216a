#include "gpuenv/net/file_url.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::net {
namespace {

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         });
}

}  // namespace

bool is_file_url(std::string_view url) { return starts_with_ignoring_case(url, "file://"); }

std::expected<std::filesystem::path, std::string> path_from_file_url(std::string_view url) {
  if (!is_file_url(url)) return std::unexpected("'" + specs::mask_credentials(url) + "' is not a file:// URL");
  std::string_view rest = url.substr(7);
  const auto slash = rest.find('/');
  const std::string_view host = rest.substr(0, slash);
  static constexpr std::array<std::string_view, 5> local_hosts = {"", "localhost", "127.0.0.1", "[::1]", "::1"};
  const bool local = std::any_of(local_hosts.begin(), local_hosts.end(),
                                 [&](std::string_view name) { return starts_with_ignoring_case(host, name) &&
                                                                     host.size() == name.size(); });
  if (!local || slash == std::string_view::npos) {
    return std::unexpected("'" + specs::mask_credentials(url) + "' names the host '" +
                           specs::mask_credentials(host) +
                           "', which is not this machine: gpuenv reads only local file:// URLs; write "
                           "file:///absolute/path (or file://localhost/absolute/path)");
  }
  return std::filesystem::path(specs::percent_decode(rest.substr(slash)));
}

std::string file_url_from_path(const std::filesystem::path& absolute_path) {
  static constexpr std::string_view hex = "0123456789ABCDEF";
  std::string url = "file://";
  for (const unsigned char c : absolute_path.string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      url += static_cast<char>(c);
    } else {
      url += '%';
      url += hex[c >> 4];
      url += hex[c & 0xF];
    }
  }
  return url;
}

}  // namespace gpuenv::net
