#include "gpuenv/repodata/subdir_location.hpp"

#include <algorithm>
#include <cctype>

#include "gpuenv/net/file_url.hpp"

namespace gpuenv::repodata {
namespace {

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         });
}

std::string with_trailing_slash(std::string url) {
  while (url.size() > 1 && url.back() == '/' && url[url.size() - 2] == '/') url.pop_back();
  if (url.empty() || url.back() != '/') url += '/';
  return url;
}

}  // namespace

std::expected<SubdirLocation, std::string> SubdirLocation::parse(std::string_view url_or_path) {
  if (url_or_path.empty()) return std::unexpected(std::string("the subdir location is empty"));
  SubdirLocation location;
  if (starts_with_ignoring_case(url_or_path, "http://") ||
      starts_with_ignoring_case(url_or_path, "https://")) {
    location.url_ = with_trailing_slash(std::string(url_or_path));
    return location;
  }
  std::filesystem::path dir;
  if (starts_with_ignoring_case(url_or_path, "file://")) {
    auto path = net::path_from_file_url(url_or_path);
    if (!path) return std::unexpected(path.error());
    dir = std::move(*path);
  } else if (url_or_path.find("://") != std::string_view::npos) {
    return std::unexpected("cannot fetch '" + std::string(url_or_path) +
                           "': only http://, https://, file:// URLs and local paths are supported");
  } else {
    // Relative paths are anchored now so the cache key does not depend on
    // the directory a later run happens to start in.
    std::error_code error;
    dir = std::filesystem::absolute(std::filesystem::path(url_or_path), error);
    if (error) {
      return std::unexpected("cannot resolve the path '" + std::string(url_or_path) +
                             "': " + error.message());
    }
  }
  location.local_ = true;
  location.local_dir_ = dir.lexically_normal();
  if (location.local_dir_.has_filename() == false && location.local_dir_ != "/") {
    location.local_dir_ = location.local_dir_.parent_path();
  }
  location.url_ = with_trailing_slash(net::file_url_from_path(location.local_dir_));
  return location;
}

std::string SubdirLocation::repodata_url(bool zst) const {
  return url_ + (zst ? "repodata.json.zst" : "repodata.json");
}

std::string SubdirLocation::subdir_name() const {
  const std::string_view trimmed(url_.data(), url_.size() - 1);  // drop the trailing '/'
  const auto slash = trimmed.rfind('/');
  return std::string(slash == std::string_view::npos ? trimmed : trimmed.substr(slash + 1));
}

}  // namespace gpuenv::repodata
