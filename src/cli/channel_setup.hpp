// The channel options the solving commands share (-c, --override-channels,
// channel priority, --offline) and loading the channels they name.
#pragma once

#include <CLI/CLI.hpp>

#include <expected>
#include <string>
#include <vector>

#include "gpuenv/solver/channel_loader.hpp"
#include "gpuenv/solver/package_database.hpp"
#include "gpuenv/solver/solver.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::cli {

struct ChannelArguments {
  std::vector<std::string> channels;
  bool override_channels = false;
  bool strict_channel_priority = false;
  bool no_channel_priority = false;
  bool offline = false;
};

void add_channel_options(CLI::App* command, ChannelArguments& arguments);

// How channel names and relative paths resolve: conda's defaults, with this
// process's home and working directories.
specs::ChannelContext channel_context(const util::EnvLookup& env);

// The channels to load, most preferred first: the -c channels, then the
// configured ones unless --override-channels, then any channel a spec names
// (`conda-forge::numpy`). gpuenv reads no .condarc yet: the configured
// channels are $CONDA_CHANNELS (comma-separated, as conda reads it) or
// conda-forge.
std::vector<std::string> channels_to_load(const ChannelArguments& arguments,
                                          const std::vector<specs::MatchSpec>& specs, const util::EnvLookup& env);

solver::ChannelPriority channel_priority(const ChannelArguments& arguments);

// Loads the channels for `platform` into `database`. Warnings go to stderr.
std::expected<solver::ChannelLoadResult, std::string> load_channels_for(
    solver::PackageDatabase& database, const ChannelArguments& arguments,
    const std::vector<specs::MatchSpec>& specs, const std::string& platform, const util::EnvLookup& env,
    bool show_progress);

// Parses each spec text; throws specs::SpecError for the first bad one.
std::vector<specs::MatchSpec> parse_specs(const std::vector<std::string>& texts,
                                          const specs::ChannelContext& context);

// The name users know a record's channel by, from the channels loaded.
std::string channel_name_of(const specs::PackageRecord& record, const solver::ChannelLoadResult& loaded);

}  // namespace gpuenv::cli
