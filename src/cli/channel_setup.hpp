// The channel options the solving commands share (-c, --override-channels,
// channel priority, --offline, --platform), conda's configuration under them
// (.condarc files and CONDA_* variables: docs/configuration.md), and loading
// the channels they name.
#pragma once

#include <CLI/CLI.hpp>

#include <expected>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/solver/channel_loader.hpp"
#include "gpuenv/solver/package_database.hpp"
#include "gpuenv/solver/solver.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/util/conda_config.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::cli {

struct ChannelArguments {
  std::vector<std::string> channels;
  bool override_channels = false;
  bool strict_channel_priority = false;
  bool no_channel_priority = false;
  bool offline = false;
  // --platform / --subdir: the subdir to solve for. with_configuration()
  // fills it in from CONDA_SUBDIR / `subdir:` or this machine's.
  std::string platform;
  // conda's configuration, once with_configuration() has read it. Without
  // it, the functions below read it from the environment they are given
  // (channel_priority, having none, uses the flags alone).
  std::optional<util::CondaConfig> configuration;
  // TLS, proxies and timeouts from that configuration and the environment
  // (net::client_settings_from), and the warnings to print once when the
  // network is used.
  net::ClientSettings client;
  std::vector<std::string> client_warnings;
};

void add_channel_options(CLI::App* command, ChannelArguments& arguments);

// A bad configuration file or setting, for the callers that cannot return an
// error value (main() prints it).
class ConfigurationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `arguments` with conda's configuration read from the files and variables
// `env` points at: offline from `offline:`, the platform settled and checked
// (--platform, else CONDA_SUBDIR / `subdir:`, else this machine). Fails with
// a message naming the file, the line and the setting.
std::expected<ChannelArguments, std::string> with_configuration(const ChannelArguments& arguments,
                                                                const util::EnvLookup& env);

// How channel names and relative paths resolve: channel_alias,
// default_channels (what `defaults` means), custom_channels and
// custom_multichannels from the configuration, with this process's home and
// working directories.
specs::ChannelContext channel_context(const util::EnvLookup& env, const util::CondaConfig& configuration);
// Reads the configuration from `env`; throws ConfigurationError when it is broken.
specs::ChannelContext channel_context(const util::EnvLookup& env);

// The channels to load, most preferred first: the -c channels, then the
// configured ones (`channels:` and $CONDA_CHANNELS, merged as conda merges
// them; conda-forge when none is configured) unless --override-channels,
// then any channel a spec names (`conda-forge::numpy`).
std::vector<std::string> channels_to_load(const ChannelArguments& arguments,
                                          const std::vector<specs::MatchSpec>& specs, const util::EnvLookup& env);

// --strict-channel-priority / --no-channel-priority, else the configured
// channel_priority, else flexible.
solver::ChannelPriority channel_priority(const ChannelArguments& arguments);

// The subdir to solve for (see with_configuration).
specs::Platform target_platform(const ChannelArguments& arguments);

// conda's pins: the lines of <prefix>/conda-meta/pinned (when `prefix` is
// given and has one), then the configured pinned_packages. Fails naming the
// file and line of a spec that does not parse.
std::expected<std::vector<specs::MatchSpec>, std::string> configured_pins(
    const ChannelArguments& arguments, const specs::ChannelContext& context,
    const std::filesystem::path& prefix = {});

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
