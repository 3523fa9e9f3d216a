// The channel options the solving commands share (-c, --override-channels,
// channel priority, --offline, --platform), turned into the overrides the
// environment layer reads conda's configuration under.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "gpuenv/environment/settings.hpp"

namespace gpuenv::cli {

struct ChannelArguments {
  std::vector<std::string> channels;
  bool override_channels = false;
  bool strict_channel_priority = false;
  bool no_channel_priority = false;
  bool offline = false;
  std::string platform;  // --platform / --subdir
};

void add_channel_options(CLI::App* command, ChannelArguments& arguments);

// What the options say on top of the configuration.
environment::SettingsOverrides settings_overrides(const ChannelArguments& arguments);

}  // namespace gpuenv::cli
