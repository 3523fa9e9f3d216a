// Environments written the way conda writes them, for the tests of the
// commands that read and use environments (list, run, shell, env export):
// conda-meta/<dist>.json records in conda's shape (fields, `channel` with
// the subdir, paths_data), conda-meta/history blocks, and the files the
// records name.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/temp_directory.hpp"

namespace gpuenv::testing {

struct CondaMetaPackage {
  std::string name;
  std::string version;
  std::string build;
  int build_number = 0;
  std::string channel;  // as conda writes it: the channel URL with the subdir
  std::string subdir = "linux-64";
  std::vector<std::string> depends{};
  std::string md5 = "0123456789abcdef0123456789abcdef";
  std::string sha256{};  // derived from the name when empty
  std::vector<std::string> features{};
  // Files the package owns: path -> content (executables under bin/).
  std::vector<std::pair<std::string, std::string>> files{};

  std::string dist() const { return name + "-" + version + "-" + build; }
  std::string fn() const { return dist() + ".conda"; }
  std::string url() const { return channel + "/" + fn(); }
  std::string digest() const {
    if (!sha256.empty()) return sha256;
    std::string hex;
    for (char c : name) hex += "0123456789abcdef"[static_cast<unsigned char>(c) % 16];
    while (hex.size() < 64) hex += "0";
    return hex.substr(0, 64);
  }
};

// A record with every field conda 24 writes for a package it linked.
inline nlohmann::json conda_meta_record(const CondaMetaPackage& package, const std::filesystem::path& prefix) {
  nlohmann::json paths = nlohmann::json::array();
  std::vector<std::string> files;
  for (const auto& [path, content] : package.files) {
    files.push_back(path);
    paths.push_back({{"_path", path},
                     {"path_type", "hardlink"},
                     {"sha256", std::string(64, 'a')},
                     {"sha256_in_prefix", std::string(64, 'a')},
                     {"size_in_bytes", content.size()}});
  }
  std::string features;
  for (const auto& feature : package.features) features += (features.empty() ? "" : " ") + feature;
  const auto pkgs = (prefix.parent_path() / "pkgs").string();
  return {{"build", package.build},
          {"build_number", package.build_number},
          {"channel", package.channel},
          {"constrains", nlohmann::json::array()},
          {"depends", package.depends},
          {"extracted_package_dir", pkgs + "/" + package.dist()},
          {"features", features},
          {"files", files},
          {"fn", package.fn()},
          {"license", "BSD-3-Clause"},
          {"link", {{"source", pkgs + "/" + package.dist()}, {"type", 1}}},
          {"md5", package.md5},
          {"name", package.name},
          {"package_tarball_full_path", pkgs + "/" + package.fn()},
          {"paths_data", {{"paths", paths}, {"paths_version", 1}}},
          {"requested_spec", "None"},
          {"sha256", package.digest()},
          {"size", 12345},
          {"subdir", package.subdir},
          {"timestamp", 1700000000000},
          {"track_features", ""},
          {"url", package.url()},
          {"version", package.version}};
}

// Writes the package's files and its conda-meta record into `prefix`.
inline void install_by_hand(const std::filesystem::path& prefix, const CondaMetaPackage& package) {
  for (const auto& [path, content] : package.files) {
    write_text_file(prefix / path, content);
    if (path.starts_with("bin/")) std::filesystem::permissions(prefix / path, std::filesystem::perms(0755));
  }
  write_text_file(prefix / "conda-meta" / (package.dist() + ".json"), conda_meta_record(package, prefix).dump(2));
}

// An empty environment: conda-meta/history only, as `conda create` leaves it.
inline void make_empty_environment(const std::filesystem::path& prefix) {
  write_text_file(prefix / "conda-meta/history", "");
}

// Three packages from three kinds of channel: conda-forge (a name under the
// channel alias), defaults (pkgs/main, shown without a channel) and a local
// file:// channel.
inline std::vector<CondaMetaPackage> three_channel_packages(const std::string& local_channel_url) {
  CondaMetaPackage zlib{.name = "zlib",
                        .version = "1.3.1",
                        .build = "hb9d3cd8_2",
                        .build_number = 2,
                        .channel = "https://conda.anaconda.org/conda-forge/linux-64",
                        .depends = {"libgcc >=13", "libzlib 1.3.1 hb9d3cd8_2"}};
  CondaMetaPackage libzlib{.name = "libzlib",
                           .version = "1.3.1",
                           .build = "hb9d3cd8_2",
                           .build_number = 2,
                           .channel = "https://conda.anaconda.org/conda-forge/linux-64",
                           .depends = {"libgcc >=13"}};
  CondaMetaPackage libgcc{.name = "libgcc",
                          .version = "14.2.0",
                          .build = "h77fa898_1",
                          .build_number = 1,
                          .channel = "https://repo.anaconda.com/pkgs/main/linux-64",
                          .depends = {}};
  CondaMetaPackage tool{.name = "gpu-tool",
                        .version = "2.0",
                        .build = "cuda12_0",
                        .channel = local_channel_url + "/linux-64",
                        .depends = {"zlib"},
                        .features = {"cuda12"},
                        .files = {{"bin/gpu-tool", "#!/bin/sh\necho gpu-tool\n"}}};
  return {zlib, libzlib, libgcc, tool};
}

}  // namespace gpuenv::testing
