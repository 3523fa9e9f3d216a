// Where a channel's package files are downloaded from (CEP 15).
#pragma once

#include <string>
#include <string_view>

namespace gpuenv::repodata {

// The directory a subdir's package files live in, ending in '/': the
// repodata's info.base_url when it has one (absolute, or relative to the
// subdir's URL), else the subdir's URL itself. conda honours base_url
// whatever the repodata_version says, and so does gpuenv. A base_url that
// base_url_problem refuses is not followed.
std::string package_directory_url(std::string_view subdir_url, std::string_view base_url);

// Why the subdir at `subdir_url` may not take its packages from `base_url`,
// or empty when it may. A remote channel (http, https) stays remote: its
// base_url may name another http(s) server, never file:// or another
// scheme, which would read this machine's disk (or talk to services) on a
// server's say-so. A local channel's base_url is not restricted.
std::string base_url_problem(std::string_view subdir_url, std::string_view base_url);

// `directory` (ending in '/') joined with a package file name.
inline std::string package_url(std::string_view directory, std::string_view filename) {
  std::string url(directory);
  url.append(filename);
  return url;
}

}  // namespace gpuenv::repodata
