// Settings read once: conda's configuration (.condarc files and CONDA_*
// variables, docs/configuration.md) with the command line on top, turned
// into the values every later step uses -- how channel names resolve, the
// channels to search, the platform solved for, channel priority, offline,
// where packages and environments live, the safety checks. plan() and
// apply() take this value; nothing below reads the configuration again.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/environment/error.hpp"
#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/solver/solver.hpp"
#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/specs/virtual_package.hpp"
#include "gpuenv/util/conda_config.hpp"
#include "gpuenv/util/environment.hpp"
#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::environment {

// What a command line (or a recipe's build step) says on top of the
// configuration. Empty / unset fields leave the configuration's value.
struct SettingsOverrides {
  std::vector<std::string> channels;  // -c, most preferred first
  bool override_channels = false;     // only `channels`, not the configured ones
  std::optional<solver::ChannelPriority> channel_priority;
  bool offline = false;               // --offline (the configuration can also say so)
  std::string platform;               // --platform / --subdir
};

struct Settings {
  util::CondaConfig configuration;
  specs::ChannelContext channel_context;
  util::UserDirectories directories;
  specs::Platform platform = specs::Platform::current();  // the subdir solved for
  // The channels to search, most preferred first: the command line's (-c),
  // then the configured ones (conda-forge when none is configured; none
  // with override_channels). channels_for() adds a file's and the specs'.
  std::vector<std::string> command_line_channels;
  std::vector<std::string> configured_channels;
  bool override_channels = false;  // configured_channels left out on purpose
  solver::ChannelPriority channel_priority = solver::ChannelPriority::flexible;
  bool offline = false;
  // TLS, proxies, timeouts: one value for every transfer of the run.
  net::ClientSettings client;
  // What the user should hear once per command about these settings
  // (conda's InsecureRequestWarning for ssl_verify: false).
  std::vector<std::string> warnings;
  // The process environment the settings were read from: CONDA_OVERRIDE_*
  // and the CUDA detection cache are read through it when solving.
  util::EnvLookup env;
  // Added to the surveyed ones for every solve: the builder's machine
  // toolchains (__cuda_compiler=13.0=0), so a build environment's solve
  // sees which nvcc the build will use.
  std::vector<specs::VirtualPackage> extra_virtual_packages;
};

// Reads the configuration `env` points at, then applies `overrides`. Fails
// naming the file, the line and the setting, or the option, and what to do.
std::expected<Settings, Error> load_settings(const SettingsOverrides& overrides, const util::EnvLookup& env);

// The settings for a configuration already read (tests, and callers that
// build one in memory).
std::expected<Settings, Error> settings_from(util::CondaConfig configuration, const SettingsOverrides& overrides,
                                             const util::EnvLookup& env);

// The channels to load for `specs`, most preferred first: the command
// line's, then `file_channels` (an environment.yml's), then the configured
// ones, then any channel a spec names; each once, at its first place. Fails
// when --override-channels left none.
std::expected<std::vector<std::string>, Error> channels_for(const Settings& settings,
                                                            const std::vector<specs::MatchSpec>& specs,
                                                            const std::vector<std::string>& file_channels = {});

// conda's pins: the lines of <prefix>/conda-meta/pinned (when `prefix` is
// given and has one), then the configured pinned_packages. Fails naming the
// file and line of a spec that does not parse.
std::expected<std::vector<specs::MatchSpec>, Error> pins_for(const Settings& settings,
                                                             const std::filesystem::path& prefix = {});

}  // namespace gpuenv::environment
