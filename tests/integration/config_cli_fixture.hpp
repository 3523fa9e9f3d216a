// What the configuration integration tests share: a private machine whose
// home directory holds the .condarc under test (nothing from the caller's
// shell or home leaks in), and two small channels written as repodata.
//
//   chan-a  linux-64: foo 1.0 (or, "broken", foo 1.0 needing a package no
//           channel has), only-in-a 1.0
//   chan-b  linux-64: foo 1.5, foo 2.0
//           linux-aarch64: armpkg 1.0 (needs __linux and __glibc >=2.17),
//           gpupkg 1.0 (needs __cuda >=12)
//           osx-arm64: macpkg 1.0 (needs __osx >=11)
//   both have an empty noarch.
#pragma once

#include <string>
#include <vector>

#include "solve_cli_fixture.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::testing {

inline std::string repodata_json(const std::string& subdir, const std::string& packages) {
  return R"({"info": {"subdir": ")" + subdir + R"("}, "packages": {)" + packages +
         R"(}, "packages.conda": {}, "removed": [], "repodata_version": 1})";
}

inline std::string record_json(const std::string& name, const std::string& version, const std::string& subdir,
                               const std::string& depends = "") {
  return R"(")" + name + "-" + version + R"(-0.tar.bz2": {"name": ")" + name + R"(", "version": ")" + version +
         R"(", "build": "0", "build_number": 0, "depends": [)" + depends + R"(], "subdir": ")" + subdir +
         R"(", "timestamp": 1700000000000})";
}

class ConfigCliMachine {
 public:
  ConfigCliMachine() { write_channels(false); }

  void write_channels(bool a_foo_is_broken) {
    write_text_file(channel_a() / "noarch/repodata.json", repodata_json("noarch", ""));
    write_text_file(channel_a() / "linux-64/repodata.json",
                    repodata_json("linux-64", record_json("foo", "1.0", "linux-64",
                                                          a_foo_is_broken ? R"("missing-lib")" : "") +
                                                  ", " + record_json("only-in-a", "1.0", "linux-64")));
    write_text_file(channel_b() / "noarch/repodata.json", repodata_json("noarch", ""));
    write_text_file(channel_b() / "linux-64/repodata.json",
                    repodata_json("linux-64", record_json("foo", "1.5", "linux-64") + ", " +
                                                  record_json("foo", "2.0", "linux-64")));
    write_text_file(channel_b() / "linux-aarch64/repodata.json",
                    repodata_json("linux-aarch64",
                                  record_json("armpkg", "1.0", "linux-aarch64", R"("__linux", "__glibc >=2.17")") +
                                      ", " + record_json("gpupkg", "1.0", "linux-aarch64", R"("__cuda >=12")")));
    write_text_file(channel_b() / "osx-arm64/repodata.json",
                    repodata_json("osx-arm64", record_json("macpkg", "1.0", "osx-arm64", R"("__osx >=11")")));
  }

  std::filesystem::path channel_a() const { return machine_ / "chan-a"; }
  std::filesystem::path channel_b() const { return machine_ / "chan-b"; }
  std::filesystem::path home() const { return machine_ / "home"; }
  std::filesystem::path condarc() const { return home() / ".condarc"; }
  std::filesystem::path operator/(std::string_view relative) const { return machine_ / relative; }

  void write_condarc(const std::string& text) const { write_text_file(condarc(), text); }

  std::vector<std::string> env(std::vector<std::string> extra = {}) const {
    std::vector<std::string> assignments = {
        "HOME=" + home().string(), "XDG_CONFIG_HOME=" + (machine_ / "xdg").string(), "-CONDARC", "-CONDA_PREFIX",
        "-CONDA_CHANNEL_PRIORITY", "-CONDA_PINNED_PACKAGES", "-CONDA_SUBDIR", "-CONDA_OFFLINE",
        "-CONDA_CHANNEL_ALIAS", "-CONDA_DEFAULT_CHANNELS", "-CONDA_CHANNEL", "-CONDA_PKGS_DIRS"};
    assignments.insert(assignments.end(), extra.begin(), extra.end());
    return machine_.env(std::move(assignments));
  }

  // `gpuenv create --dry-run --json` of `specs` in a fresh prefix.
  CommandOutput create(std::vector<std::string> arguments, std::vector<std::string> extra_env = {}) const {
    std::vector<std::string> args = {"create", "-p", (machine_ / "env").string(), "--dry-run", "--json"};
    args.insert(args.end(), arguments.begin(), arguments.end());
    return run_gpuenv(args, env(std::move(extra_env)));
  }

  CommandOutput search(std::vector<std::string> arguments, std::vector<std::string> extra_env = {}) const {
    std::vector<std::string> args = {"search", "--json"};
    args.insert(args.end(), arguments.begin(), arguments.end());
    return run_gpuenv(args, env(std::move(extra_env)));
  }

 private:
  SolveCliMachine machine_;
};

// "name version" of each LINK action with the channel it comes from.
inline std::vector<std::string> linked_from(const nlohmann::json& document) {
  std::vector<std::string> result;
  for (const auto& action : document["actions"]["LINK"]) {
    result.push_back(action["name"].get<std::string>() + " " + action["version"].get<std::string>() + " " +
                     action["channel"].get<std::string>());
  }
  return result;
}

}  // namespace gpuenv::testing
