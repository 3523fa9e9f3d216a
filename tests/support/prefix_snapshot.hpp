// What a prefix holds, as one comparable value: every path with its kind,
// mode and content digest (symbolic links with their target), gpuenv's own
// transaction files left out. Occurrences of the prefix's own path are
// replaced by "<PREFIX>" before hashing, so two prefixes whose paths have
// the same length compare equal when they hold the same installation.
// conda-meta records carry the digest of each file as installed; for files
// the prefix path was written into, that digest differs between prefixes,
// so it is left out (the files themselves are compared).
// The conda-meta directory itself is not an entry: gpuenv keeps its prefix
// lock there, so a rolled-back transaction into a new prefix leaves it
// (holding nothing else: no history, so not a conda environment).
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuenv/package/hashing.hpp"

namespace gpuenv::testing {

using PrefixSnapshot = std::map<std::string, std::string>;

inline std::string without_prefix(std::string content, const std::string& prefix) {
  std::size_t at = 0;
  while ((at = content.find(prefix, at)) != std::string::npos) {
    content.replace(at, prefix.size(), "<PREFIX>");
    at += 8;
  }
  return content;
}

// conda-meta/history: the package and specs lines (times differ between runs).
inline std::string history_lines(const std::string& content) {
  std::istringstream in(content);
  std::string line;
  std::string kept;
  while (std::getline(in, line)) {
    if (line.starts_with("==>") || line.starts_with("# cmd")) {
      kept += "<block>\n";
      continue;
    }
    kept += line + "\n";
  }
  return kept;
}

inline std::string without_prefix_digests(const std::string& record) {
  auto json = nlohmann::json::parse(record, nullptr, false);
  if (json.is_discarded() || !json.contains("paths_data")) return record;
  for (auto& path : json["paths_data"]["paths"]) {
    if (path.contains("prefix_placeholder")) path.erase("sha256_in_prefix");
  }
  return json.dump(2);
}

inline PrefixSnapshot snapshot_prefix(const std::filesystem::path& prefix) {
  PrefixSnapshot snapshot;
  if (!std::filesystem::exists(prefix)) return snapshot;
  for (auto it = std::filesystem::recursive_directory_iterator(prefix);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    const auto relative = it->path().lexically_relative(prefix).generic_string();
    if (relative == "conda-meta") continue;
    if (relative.starts_with("conda-meta/.gpuenv")) {
      if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
      continue;
    }
    struct stat info {};
    ::lstat(it->path().c_str(), &info);
    std::string description;
    if (S_ISLNK(info.st_mode)) {
      description = "link -> " + std::filesystem::read_symlink(it->path()).string();
    } else if (S_ISDIR(info.st_mode)) {
      description = "dir";
    } else {
      std::ifstream in(it->path(), std::ios::binary);
      std::string content((std::istreambuf_iterator<char>(in)), {});
      if (relative == "conda-meta/history") content = history_lines(content);
      if (relative.starts_with("conda-meta/") && relative.ends_with(".json")) {
        content = without_prefix_digests(content);
      }
      content = without_prefix(std::move(content), prefix.string());
      std::ostringstream mode;
      mode << std::oct << (info.st_mode & 0777);
      description = "file " + mode.str() + " " + package::sha256_hex(content);
    }
    snapshot[relative] = description;
  }
  return snapshot;
}

inline std::string describe_difference(const PrefixSnapshot& actual, const PrefixSnapshot& expected) {
  std::string text;
  for (const auto& [path, what] : actual) {
    const auto it = expected.find(path);
    if (it == expected.end()) text += "  extra: " + path + " (" + what + ")\n";
    else if (it->second != what) text += "  differs: " + path + "\n";
  }
  for (const auto& [path, what] : expected) {
    if (!actual.contains(path)) text += "  missing: " + path + " (" + what + ")\n";
  }
  return text;
}

}  // namespace gpuenv::testing
