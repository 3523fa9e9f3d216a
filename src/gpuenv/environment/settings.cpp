#include "gpuenv/environment/settings.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::environment {
namespace {

// gpuenv is about conda-forge's GPU stack; it is also miniforge's default.
// (conda's own default, `defaults`, stays one `channels: [defaults]` away.)
constexpr const char* default_channel = "conda-forge";

std::string known_platforms() {
  std::vector<std::string_view> names;
  for (const auto name : specs::known_subdirs()) {
    if (name != "noarch") names.push_back(name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

// --platform, else CONDA_SUBDIR / `subdir:`, else this machine.
std::expected<specs::Platform, Error> platform_to_solve_for(const util::CondaConfig& configuration,
                                                            const SettingsOverrides& overrides) {
  if (!overrides.platform.empty()) {
    const auto platform = specs::Platform::parse(overrides.platform);
    if (!platform || platform->str() == "noarch") {
      return std::unexpected(make_error(ErrorKind::usage,
                                        fmt::format("--platform '{}' is not a platform to solve for; use one of {}",
                                                    overrides.platform, known_platforms())));
    }
    return *platform;
  }
  if (configuration.subdir) {
    const auto platform = specs::Platform::parse(*configuration.subdir);
    if (!platform || platform->str() == "noarch") {
      return std::unexpected(make_error(
          ErrorKind::configuration, fmt::format("{}: subdir '{}' is not a platform to solve for; use one of {}",
                                                configuration.origin_of("subdir"), *configuration.subdir,
                                                known_platforms())));
    }
    return *platform;
  }
  return specs::Platform::current();
}

solver::ChannelPriority configured_priority(util::ChannelPrioritySetting setting) {
  switch (setting) {
    case util::ChannelPrioritySetting::strict: return solver::ChannelPriority::strict;
    case util::ChannelPrioritySetting::disabled: return solver::ChannelPriority::disabled;
    case util::ChannelPrioritySetting::flexible: break;
  }
  return solver::ChannelPriority::flexible;
}

// How channel names and relative paths resolve: channel_alias,
// default_channels (what `defaults` means), custom_channels and
// custom_multichannels, with this process's home and working directories.
specs::ChannelContext channel_context_of(const util::CondaConfig& configuration, const util::EnvLookup& env) {
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

void append_once(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

}  // namespace

std::expected<Settings, Error> load_settings(const SettingsOverrides& overrides, const util::EnvLookup& env) {
  auto configuration = util::load_conda_config(env);
  if (!configuration) return std::unexpected(make_error(ErrorKind::configuration, configuration.error()));
  return settings_from(std::move(*configuration), overrides, env);
}

std::expected<Settings, Error> settings_from(util::CondaConfig configuration, const SettingsOverrides& overrides,
                                             const util::EnvLookup& env) {
  auto platform = platform_to_solve_for(configuration, overrides);
  if (!platform) return std::unexpected(platform.error());

  auto client = net::client_settings_from(configuration, env);
  if (!client) return std::unexpected(make_error(ErrorKind::configuration, client.error()));

  Settings settings;
  settings.client = std::move(client->settings);
  settings.warnings = std::move(client->warnings);
  settings.platform = *platform;
  settings.channel_context = channel_context_of(configuration, env);
  settings.directories = util::resolve_user_directories(env);
  settings.offline = overrides.offline || configuration.offline;
  settings.channel_priority = overrides.channel_priority.value_or(configured_priority(configuration.channel_priority));
  settings.command_line_channels = overrides.channels;
  settings.override_channels = overrides.override_channels;
  if (!overrides.override_channels) {
    settings.configured_channels = !configuration.channels.empty() ? configuration.channels
                                                                   : std::vector<std::string>{default_channel};
  }
  settings.configuration = std::move(configuration);
  settings.env = env;
  return settings;
}

std::expected<std::vector<std::string>, Error> channels_for(const Settings& settings,
                                                            const std::vector<specs::MatchSpec>& specs,
                                                            const std::vector<std::string>& file_channels) {
  std::vector<std::string> channels;
  for (const auto* list : {&settings.command_line_channels, &file_channels, &settings.configured_channels}) {
    for (const auto& channel : *list) append_once(channels, channel);
  }
  for (const auto& spec : specs) {
    const auto* matcher = spec.channel();
    if (matcher == nullptr || matcher->channel() == nullptr) continue;
    append_once(channels, matcher->channel()->original());
  }
  if (channels.empty() && settings.override_channels) {
    return std::unexpected(make_error(ErrorKind::configuration,
                                      "--override-channels needs at least one -c CHANNEL: it leaves only those"));
  }
  return channels;
}

std::expected<std::vector<specs::MatchSpec>, Error> pins_for(const Settings& settings,
                                                             const std::filesystem::path& prefix) {
  std::vector<specs::MatchSpec> pins;
  const auto add = [&](const std::string& text, const std::string& origin) -> std::expected<void, Error> {
    try {
      pins.push_back(specs::MatchSpec::parse(text, settings.channel_context));
    } catch (const specs::SpecError& error) {
      return std::unexpected(make_error(
          ErrorKind::configuration, fmt::format("{}: the pin '{}' is not a package spec: {}", origin, text, error.what())));
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
  const auto& configuration = settings.configuration;
  for (const auto& text : configuration.pinned_packages) {
    const auto origin = configuration.origin_of("pinned_packages", text);
    if (auto added = add(text, origin.empty() ? std::string("pinned_packages") : origin); !added) {
      return std::unexpected(added.error());
    }
  }
  return pins;
}

}  // namespace gpuenv::environment
