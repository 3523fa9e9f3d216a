#include "channel_setup.hpp"

#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::cli {
namespace {

// gpuenv is about conda-forge's GPU stack; it is also miniforge's default.
// (conda's own default, `defaults`, stays one `channels: [defaults]` away.)
constexpr const char* default_channel = "conda-forge";

util::CondaConfig read_configuration_or_throw(const util::EnvLookup& env) {
  auto configuration = util::load_conda_config(env);
  if (!configuration) throw ConfigurationError(configuration.error());
  return std::move(*configuration);
}

std::string known_platforms() {
  std::vector<std::string_view> names;
  for (const auto name : specs::known_subdirs()) {
    if (name != "noarch") names.push_back(name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

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

std::expected<ChannelArguments, std::string> with_configuration(const ChannelArguments& arguments,
                                                                const util::EnvLookup& env) {
  auto configured = arguments;
  if (!configured.configuration) {
    auto configuration = util::load_conda_config(env);
    if (!configuration) return std::unexpected(configuration.error());
    configured.configuration = std::move(*configuration);
  }
  const auto& configuration = *configured.configuration;
  configured.offline = arguments.offline || configuration.offline;
  auto client = net::client_settings_from(configuration, env);
  if (!client) return std::unexpected(client.error());
  configured.client = std::move(client->settings);
  configured.client_warnings = std::move(client->warnings);

  if (!configured.platform.empty()) {
    const auto platform = specs::Platform::parse(configured.platform);
    if (!platform || platform->str() == "noarch") {
      return std::unexpected(fmt::format("--platform '{}' is not a platform to solve for; use one of {}",
                                         configured.platform, known_platforms()));
    }
  } else if (configuration.subdir) {
    const auto platform = specs::Platform::parse(*configuration.subdir);
    if (!platform || platform->str() == "noarch") {
      return std::unexpected(fmt::format("{}: subdir '{}' is not a platform to solve for; use one of {}",
                                         configuration.origin_of("subdir"), *configuration.subdir,
                                         known_platforms()));
    }
    configured.platform = *configuration.subdir;
  } else {
    configured.platform = specs::Platform::current().str();
  }

  if (configured.override_channels && configured.channels.empty()) {
    return std::unexpected("--override-channels needs at least one -c CHANNEL: it leaves only those");
  }
  return configured;
}

specs::ChannelContext channel_context(const util::EnvLookup& env, const util::CondaConfig& configuration) {
  specs::ChannelContext context;
  if (configuration.channel_alias) context.channel_alias = *configuration.channel_alias;
  if (configuration.default_channels) context.default_channels = *configuration.default_channels;
  context.custom_channels = configuration.custom_channels;
  context.custom_multichannels = configuration.custom_multichannels;
  if (const auto home = env("HOME")) context.home_directory = *home;
  std::error_code error;
  const auto cwd = std::filesystem::current_path(error);
  if (!error) context.current_directory = cwd.string();
  return context;
}

specs::ChannelContext channel_context(const util::EnvLookup& env) {
  return channel_context(env, read_configuration_or_throw(env));
}

std::vector<std::string> channels_to_load(const ChannelArguments& arguments,
                                          const std::vector<specs::MatchSpec>& specs, const util::EnvLookup& env) {
  std::vector<std::string> channels = arguments.channels;
  if (!arguments.override_channels) {
    std::optional<util::CondaConfig> read_here;
    const auto& configuration =
        arguments.configuration ? *arguments.configuration : read_here.emplace(read_configuration_or_throw(env));
    const auto list = !configuration.channels.empty() ? configuration.channels
                                                      : std::vector<std::string>{default_channel};
    channels.insert(channels.end(), list.begin(), list.end());
  }
  for (const auto& spec : specs) {
    const auto* matcher = spec.channel();
    if (matcher == nullptr || matcher->channel() == nullptr) continue;
    channels.push_back(matcher->channel()->original());
  }
  // A channel named twice keeps its first (most preferred) place.
  std::vector<std::string> unique;
  for (const auto& channel : channels) {
    if (std::find(unique.begin(), unique.end(), channel) == unique.end()) unique.push_back(channel);
  }
  return unique;
}

solver::ChannelPriority channel_priority(const ChannelArguments& arguments) {
  if (arguments.strict_channel_priority) return solver::ChannelPriority::strict;
  if (arguments.no_channel_priority) return solver::ChannelPriority::disabled;
  if (arguments.configuration) {
    switch (arguments.configuration->channel_priority) {
      case util::ChannelPrioritySetting::strict: return solver::ChannelPriority::strict;
      case util::ChannelPrioritySetting::disabled: return solver::ChannelPriority::disabled;
      case util::ChannelPrioritySetting::flexible: break;
    }
  }
  return solver::ChannelPriority::flexible;
}

specs::Platform target_platform(const ChannelArguments& arguments) {
  if (const auto platform = specs::Platform::parse(arguments.platform)) return *platform;
  return specs::Platform::current();
}

std::expected<std::vector<specs::MatchSpec>, std::string> configured_pins(const ChannelArguments& arguments,
                                                                          const specs::ChannelContext& context,
                                                                          const std::filesystem::path& prefix) {
  std::vector<specs::MatchSpec> pins;
  const auto add = [&](const std::string& text, const std::string& origin) -> std::expected<void, std::string> {
    try {
      pins.push_back(specs::MatchSpec::parse(text, context));
    } catch (const specs::SpecError& error) {
      return std::unexpected(fmt::format("{}: the pin '{}' is not a package spec: {}", origin, text, error.what()));
    }
    return {};
  };
  if (!prefix.empty()) {
    // conda's per-environment pins: one spec a line, `#` comments.
    const auto pinned_file = prefix / "conda-meta" / "pinned";
    if (const auto text = util::read_file(pinned_file)) {
      std::size_t start = 0;
      int line_number = 0;
      while (start < text->size()) {
        auto end = text->find('\n', start);
        if (end == std::string::npos) end = text->size();
        ++line_number;
        const auto line = std::string(util::trim(std::string_view(*text).substr(start, end - start)));
        start = end + 1;
        if (line.empty() || line.front() == '#') continue;
        if (auto added = add(line, fmt::format("{}:{}", pinned_file.string(), line_number)); !added) {
          return std::unexpected(added.error());
        }
      }
    }
  }
  if (arguments.configuration) {
    for (const auto& text : arguments.configuration->pinned_packages) {
      const auto origin = arguments.configuration->origin_of("pinned_packages", text);
      if (auto added = add(text, origin.empty() ? std::string("pinned_packages") : origin); !added) {
        return std::unexpected(added.error());
      }
    }
  }
  return pins;
}

std::expected<solver::ChannelLoadResult, std::string> load_channels_for(
    solver::PackageDatabase& database, const ChannelArguments& arguments,
    const std::vector<specs::MatchSpec>& specs, const std::string& platform, const util::EnvLookup& env,
    bool show_progress) {
  solver::ChannelLoadOptions options;
  options.channels = channels_to_load(arguments, specs, env);
  options.context = channel_context(env);
  options.platform = platform;
  options.cache_dir = util::resolve_user_directories(env).cache_dir;
  options.offline = arguments.offline;
  options.show_progress = show_progress;
  options.client = arguments.client;
  for (const auto& warning : arguments.client_warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
  // Only the records the specs can reach (their dependency closure): the
  // same solution as with every record, from a small part of the channel.
  options.reachable_from = specs;
  auto loaded = solver::load_channels(database, options);
  if (loaded) {
    for (const auto& warning : loaded->warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
  }
  return loaded;
}

std::vector<specs::MatchSpec> parse_specs(const std::vector<std::string>& texts,
                                          const specs::ChannelContext& context) {
  std::vector<specs::MatchSpec> result;
  for (const auto& text : texts) result.push_back(specs::MatchSpec::parse(text, context));
  return result;
}

std::string channel_name_of(const specs::PackageRecord& record, const solver::ChannelLoadResult& loaded) {
  for (const auto& subdir : loaded.subdirs) {
    if (subdir.source.channel_url == record.channel) return subdir.source.channel_name;
  }
  // conda-meta records name the channel with its subdir ("<url>/linux-64"):
  // shown like the channels above, without it.
  if (!record.subdir.empty() && record.channel.ends_with("/" + record.subdir)) {
    return record.channel.substr(0, record.channel.size() - record.subdir.size() - 1);
  }
  return record.channel;
}

}  // namespace gpuenv::cli
