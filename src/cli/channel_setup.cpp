#include "channel_setup.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::cli {
namespace {

// gpuenv is about conda-forge's GPU stack; it is also miniforge's default.
constexpr const char* default_channel = "conda-forge";

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) items.push_back(item);
    start = end + 1;
  }
  return items;
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
}

specs::ChannelContext channel_context(const util::EnvLookup& env) {
  specs::ChannelContext context;
  if (const auto home = env("HOME")) context.home_directory = *home;
  std::error_code error;
  const auto cwd = std::filesystem::current_path(error);
  if (!error) context.current_directory = cwd.string();
  return context;
}

std::vector<std::string> channels_to_load(const ChannelArguments& arguments,
                                          const std::vector<specs::MatchSpec>& specs, const util::EnvLookup& env) {
  std::vector<std::string> channels = arguments.channels;
  if (!arguments.override_channels) {
    const auto configured = env("CONDA_CHANNELS");
    const auto list = configured && !configured->empty() ? split_commas(*configured)
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
  return solver::ChannelPriority::flexible;
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
  return record.channel;
}

}  // namespace gpuenv::cli
