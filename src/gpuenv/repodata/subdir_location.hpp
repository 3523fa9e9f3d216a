// Where one channel subdir's repodata lives: a URL served over HTTP(S), or a
// local directory given as a file:// URL or a plain path.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

namespace gpuenv::repodata {

class SubdirLocation {
 public:
  // Accepts "https://host/channel/linux-64/", "file:///srv/channel/linux-64",
  // "/srv/channel/linux-64" or "./channel/linux-64" (a trailing '/' is optional).
  // Fails for an empty location or a scheme gpuenv cannot fetch (s3://, ...).
  static std::expected<SubdirLocation, std::string> parse(std::string_view url_or_path);

  // The subdir URL with exactly one trailing '/': the cache key is derived
  // from it, so "x/linux-64" and "x/linux-64/" share one cache entry. Local
  // directories are spelled as absolute file:// URLs.
  const std::string& url() const { return url_; }
  bool is_local() const { return local_; }
  // The directory of a local subdir (only meaningful when is_local()).
  const std::filesystem::path& local_dir() const { return local_dir_; }
  // url() + "repodata.json" or url() + "repodata.json.zst".
  std::string repodata_url(bool zst) const;
  // The last path segment: "linux-64", "noarch", ...
  std::string subdir_name() const;

 private:
  std::string url_;
  bool local_ = false;
  std::filesystem::path local_dir_;
};

}  // namespace gpuenv::repodata
