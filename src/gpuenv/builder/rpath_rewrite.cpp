#include "gpuenv/builder/rpath_rewrite.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <optional>

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

bool starts_with_origin(const std::string& entry) {
  return entry.starts_with("$ORIGIN") || entry.starts_with("${ORIGIN}");
}

bool allowlisted(const std::string& entry, const std::vector<std::string>& allowlist) {
  return std::any_of(allowlist.begin(), allowlist.end(),
                     [&](const std::string& pattern) { return ::fnmatch(pattern.c_str(), entry.c_str(), 0) == 0; });
}

// "lib/" and "lib" alike: a trailing separator leaves an empty last
// component, which would show in the $ORIGIN path.
fs::path without_empty_parts(const fs::path& path) {
  fs::path cleaned;
  for (const auto& part : path.lexically_normal()) {
    if (!part.empty()) cleaned /= part;
  }
  return cleaned;
}

// `directory` relative to the file's own directory, both inside the prefix:
// "$ORIGIN", "$ORIGIN/../lib".
std::string origin_relative(const fs::path& directory, const std::string& file) {
  const fs::path from = fs::path(file).parent_path();
  auto relative = directory.lexically_relative(from);
  if (relative.empty() || relative == ".") return "$ORIGIN";
  return "$ORIGIN/" + relative.generic_string();
}

// The entry's path under the prefix ("lib/extra"), or nothing when it is
// outside. Compared component by component, so /p/host_env_x is not under
// /p/host_env.
std::optional<fs::path> inside_prefix(const std::string& entry, const fs::path& prefix) {
  const fs::path normal = fs::path(entry).lexically_normal();
  const fs::path root = prefix.lexically_normal();
  auto relative = normal.lexically_relative(root);
  if (relative.empty()) return std::nullopt;
  if (relative == ".") return fs::path();
  if (*relative.begin() == "..") return std::nullopt;
  return without_empty_parts(relative);
}

void add_once(std::vector<std::string>& entries, std::string entry) {
  if (std::find(entries.begin(), entries.end(), entry) == entries.end()) entries.push_back(std::move(entry));
}

}  // namespace

std::string RpathRewrite::joined() const {
  std::string text;
  for (const auto& entry : entries) text += (text.empty() ? "" : ":") + entry;
  return text;
}

std::vector<std::string> effective_default_rpaths(const std::vector<std::string>& rpaths) {
  return rpaths.empty() ? std::vector<std::string>{"lib/"} : rpaths;
}

RpathRewrite rewrite_rpath(const RpathRewriteInput& input) {
  RpathRewrite rewrite;
  std::size_t start = 0;
  while (start <= input.current.size()) {
    auto end = input.current.find(':', start);
    if (end == std::string::npos) end = input.current.size();
    std::string entry = input.current.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    if (starts_with_origin(entry)) {
      add_once(rewrite.entries, std::move(entry));
    } else if (const auto relative = entry.starts_with('/') ? inside_prefix(entry, input.prefix) : std::nullopt) {
      add_once(rewrite.entries, origin_relative(*relative, input.file));
    } else if (allowlisted(entry, input.allowlist)) {
      add_once(rewrite.entries, std::move(entry));
    } else {
      // The build machine's or the build environment's directories, or a
      // path relative to whatever directory the program runs in: none of
      // them exists where the package is installed.
      rewrite.dropped.push_back(std::move(entry));
    }
  }
  if (rewrite.entries.empty() && input.links_prefix_libraries) {
    for (const auto& directory : effective_default_rpaths(input.default_rpaths)) {
      add_once(rewrite.entries, origin_relative(without_empty_parts(directory), input.file));
    }
  }
  return rewrite;
}

}  // namespace gpuenv::build
