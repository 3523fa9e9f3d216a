#include "channel_setup.hpp"

namespace gpuenv::cli {

void add_channel_options(CLI::App* command, ChannelArguments& arguments) {
  // One value per -c, so that `-c chan numpy` leaves numpy to the specs.
  command->add_option("-c,--channel", arguments.channels,
                      "Channel to search for packages (repeatable; the first is the most preferred)")
      ->allow_extra_args(false);
  command->add_flag("--override-channels", arguments.override_channels,
                    "Use only the channels given with -c, not the configured ones");
  auto* strict = command->add_flag("--strict-channel-priority", arguments.strict_channel_priority,
                                   "Never take a package from a lower-priority channel when a higher one has it");
  command->add_flag("--no-channel-priority", arguments.no_channel_priority,
                    "Let versions decide between channels; channel order only breaks ties")
      ->excludes(strict);
  command->add_flag("--offline", arguments.offline, "Use cached repodata only, never the network");
  command->add_option("--platform,--subdir", arguments.platform,
                      "Solve for another platform's subdir (linux-aarch64, osx-arm64, ...); default: "
                      "CONDA_SUBDIR, else this machine's")
      ->allow_extra_args(false);
}

environment::SettingsOverrides settings_overrides(const ChannelArguments& arguments) {
  environment::SettingsOverrides overrides;
  overrides.channels = arguments.channels;
  overrides.override_channels = arguments.override_channels;
  if (arguments.strict_channel_priority) overrides.channel_priority = solver::ChannelPriority::strict;
  if (arguments.no_channel_priority) overrides.channel_priority = solver::ChannelPriority::disabled;
  overrides.offline = arguments.offline;
  overrides.platform = arguments.platform;
  return overrides;
}

}  // namespace gpuenv::cli
