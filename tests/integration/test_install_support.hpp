// What the tests of the environment-changing commands (create, install,
// update, remove, --file, crash recovery) share: a private machine
// (solve_cli_fixture.hpp) with its own package cache and root prefix, and a
// channel of packages the tests build, served from file:// or over HTTP.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solve_cli_fixture.hpp"
#include "support/package_builder.hpp"
#include "support/prefix_snapshot.hpp"
#include "support/run_command.hpp"

namespace gpuenv::testing {

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The packages of the test channel:
//   libdep 1.0 and 2.0   a "shared library" with the prefix in binary and text files
//   app 1.0              needs libdep, a bin/ script holding the prefix, a symlink
//   tool 1.0, other 1.0  independent packages
//   left 1.0, right 1.0  both need `common` (concurrent installs share it)
//   bulk 1.0             needs libdep; 40 files, for killing a transaction half way
inline std::vector<PackageBuilder> test_packages() {
  std::vector<PackageBuilder> packages;
  for (const std::string version : {"1.0", "2.0"}) {
    packages.push_back(PackageBuilder("libdep", version, "h0_0")
                           .binary_with_prefix("lib/libdep.so", std::string("\x7f" "ELF ") + long_placeholder() +
                                                                    std::string("\0/lib tail", 10))
                           .text_with_prefix("share/libdep/config.txt",
                                             "prefix=" + long_placeholder() + "\nversion=" + version + "\n")
                           .file("share/libdep/VERSION", version + "\n")
                           .symlink("lib/libdep.so.1", "libdep.so"));
  }
  packages.push_back(PackageBuilder("app", "1.0", "h1_0")
                         .depends({"libdep >=1.0"})
                         .text_with_prefix("bin/app", "#!/bin/sh\necho app from " + long_placeholder() + "\n",
                                           long_placeholder(), 0755)
                         .file("share/app/README", "app 1.0\n"));
  packages.push_back(PackageBuilder("tool", "1.0").file("bin/tool", "#!/bin/sh\necho tool\n", 0755));
  packages.push_back(PackageBuilder("other", "1.0").file("share/other/data", "other\n"));
  packages.push_back(PackageBuilder("common", "1.0").file("share/common/data", "common\n"));
  packages.push_back(PackageBuilder("left", "1.0").depends({"common"}).file("share/left/data", "left\n"));
  packages.push_back(PackageBuilder("right", "1.0").depends({"common"}).file("share/right/data", "right\n"));
  PackageBuilder bulk("bulk", "1.0");
  bulk.depends({"libdep"});
  for (int i = 0; i < 40; ++i) {
    if (i % 4 == 0) {
      bulk.text_with_prefix("share/bulk/file" + std::to_string(i) + ".txt",
                            "#" + std::to_string(i) + " " + long_placeholder() + "\n");
    } else {
      bulk.file("share/bulk/file" + std::to_string(i) + ".txt", "bulk file " + std::to_string(i) + "\n");
    }
  }
  packages.push_back(bulk);
  return packages;
}

inline std::string file_url(const std::filesystem::path& path) { return "file://" + path.string(); }

// Writes the test channel into `root`; `base_url` is how gpuenv reaches it.
inline void write_test_channel(const std::filesystem::path& root, const std::string& base_url) {
  ChannelBuilder channel(root, base_url);
  for (const auto& package : test_packages()) channel.add(package);
  // A channel needs a noarch subdir, even an empty one.
  std::filesystem::create_directories(root / "noarch");
  if (!std::filesystem::exists(root / "noarch/repodata.json")) {
    std::ofstream(root / "noarch/repodata.json")
        << R"({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}})";
  }
}

inline nlohmann::json read_json_file(const std::filesystem::path& path) {
  return nlohmann::json::parse(read_file(path), nullptr, false);
}

// The dists ("name-version-build") conda-meta records, sorted.
inline std::vector<std::string> installed_dists(const std::filesystem::path& prefix) {
  std::vector<std::string> dists;
  if (!std::filesystem::is_directory(prefix / "conda-meta")) return dists;
  for (const auto& entry : std::filesystem::directory_iterator(prefix / "conda-meta")) {
    const auto name = entry.path().filename().string();
    if (name.ends_with(".json")) dists.push_back(name.substr(0, name.size() - 5));
  }
  std::sort(dists.begin(), dists.end());
  return dists;
}

// A machine with the test channel at <root>/channel, reached by file://.
class InstallCliMachine : public SolveCliMachine {
 public:
  InstallCliMachine() {
    write_test_channel(channel_dir(), file_url(channel_dir()));
  }
  std::filesystem::path channel_dir() const { return *this / "channel"; }
  std::string channel() const { return file_url(channel_dir()); }

  // `gpuenv <command> -p <prefix> -c <channel> --override-channels -y args...`
  CommandOutput gpuenv(const std::string& command, const std::filesystem::path& prefix,
                       const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {}) const {
    std::vector<std::string> all = {command, "-p", prefix.string()};
    if (command != "remove") {
      all.insert(all.end(), {"-c", channel(), "--override-channels"});
    }
    all.push_back("-y");
    all.insert(all.end(), args.begin(), args.end());
    return run_gpuenv(all, env(extra_env));
  }
};

}  // namespace gpuenv::testing
