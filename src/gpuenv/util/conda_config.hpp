// conda's configuration, read the way conda reads it: the .condarc files of
// its search path (UserDirectories::config_search_path, lowest precedence
// first), then the CONDA_* environment variables. The command line goes on
// top in the CLI. docs/configuration.md lists what is read.
//
// Merging follows conda (conda.common.configuration):
// - a single value: the highest-precedence source wins;
// - a list: entries of higher-precedence sources come first, each entry
//   once (where it first appears);
// - a map: keys from every source, the higher-precedence value winning;
// - `#!final` after a key stops sources of higher precedence from changing
//   that setting (a map key marked so keeps its value); `#!top` and
//   `#!bottom` after a list entry move it to the front or the back;
//   `!important` ends an environment variable's value to the same effect as
//   `#!final`.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/util/environment.hpp"

namespace gpuenv::util {

// conda's channel_priority (the solver module has its own enum; util sits
// below it).
enum class ChannelPrioritySetting { strict, flexible, disabled };

// conda's safety_checks: what a package whose files differ from its
// info/paths.json gets (prefix::PackageCache applies it).
enum class SafetyChecksSetting { warn, enabled, disabled };

struct CondaConfig {
  // As written, most preferred first; may hold `defaults`. Empty: none configured.
  std::vector<std::string> channels;
  // What `defaults` stands for; nullopt: conda's own list.
  std::optional<std::vector<std::string>> default_channels;
  // Where bare channel names live; nullopt: https://conda.anaconda.org.
  std::optional<std::string> channel_alias;
  // name -> the URL the name lives under ({"internal": "https://repo.corp"}).
  std::map<std::string, std::string> custom_channels;
  // name -> the channels it stands for.
  std::map<std::string, std::vector<std::string>> custom_multichannels;
  ChannelPrioritySetting channel_priority = ChannelPrioritySetting::flexible;
  // MatchSpecs every solve must respect; they install nothing by themselves.
  std::vector<std::string> pinned_packages;
  // The platform subdir to solve for ("linux-aarch64"); nullopt: this machine's.
  std::optional<std::string> subdir;
  bool offline = false;
  // ssl_verify: false turns verification off; a path names a CA bundle file
  // or directory (then ssl_verify stays true); `truststore` means the
  // system's store, as true does.
  bool ssl_verify = true;
  std::string ssl_ca_path;
  // client_ssl_cert (PEM, may hold the key) and client_ssl_cert_key; empty:
  // none. Checked to exist by net::client_settings_from, not here.
  std::string client_ssl_cert;
  std::string client_ssl_cert_key;
  // "http", "https", "all" or "<scheme>://<host>" -> proxy URL.
  std::map<std::string, std::string> proxy_servers;
  // As written (environment variables and `~` expanded); empty: not configured.
  std::vector<std::string> envs_dirs;
  std::vector<std::string> pkgs_dirs;
  // What a package whose files differ from its paths.json gets.
  SafetyChecksSetting safety_checks = SafetyChecksSetting::warn;
  bool extra_safety_checks = false;
  // gpuenv's own key: after create/install/update, warn when a library just
  // installed cannot run on this machine's GPUs (docs/cuda-binaries.md).
  bool gpuenv_check_device_code = true;
  // gpuenv's own key: answer a solve asked before from <cache>/solves
  // (environment/solve_memo.hpp) instead of solving again.
  bool gpuenv_solve_memo = true;
  // Changes go ahead without asking (conda's always_yes, CONDA_ALWAYS_YES).
  bool always_yes = false;

  // The files that were read, lowest precedence first.
  std::vector<std::filesystem::path> files;
  // Where each setting came from, for messages: "<file>:<line>" or
  // "$CONDA_CHANNELS". Keys are setting names, and "<setting>: <entry>" for
  // list entries.
  std::map<std::string, std::string, std::less<>> origins;

  // "" when the setting was not configured.
  std::string origin_of(std::string_view setting, std::string_view entry = {}) const;
};

// Reads `files` (lowest precedence first), then the CONDA_* variables in
// `env`. Fails with a message naming the file, the line and the setting, and
// what to write instead. Settings gpuenv does not use are ignored, as conda
// ignores keys it does not know.
std::expected<CondaConfig, std::string> load_conda_config(const std::vector<std::filesystem::path>& files,
                                                          const EnvLookup& env);

// The files of conda's search path that exist, as `env` places them
// (resolve_user_directories), then the variables.
std::expected<CondaConfig, std::string> load_conda_config(const EnvLookup& env);

}  // namespace gpuenv::util
