#include "gpuenv/environment/channel_loading.hpp"

namespace gpuenv::environment {

std::expected<solver::ChannelLoadResult, Error> load_channels_for(solver::PackageDatabase& database,
                                                                 const Settings& settings,
                                                                 const std::vector<specs::MatchSpec>& specs,
                                                                 const std::vector<std::string>& file_channels,
                                                                 Reach reach, Reporter& reporter,
                                                                 std::vector<std::string> installed_names) {
  auto channels = channels_for(settings, specs, file_channels);
  if (!channels) return std::unexpected(channels.error());
  solver::ChannelLoadOptions options;
  options.channels = std::move(*channels);
  options.context = settings.channel_context;
  options.platform = std::string(settings.platform.str());
  options.cache_dir = settings.directories.cache_dir;
  options.offline = settings.offline;
  options.fetch_observer = &reporter;
  options.client = settings.client;
  // Only the records the specs can reach: the same answer as with every
  // record, from a small part of the channel.
  options.reachable_from = specs;
  options.follow_dependencies = reach == Reach::dependency_closure;
  options.installed_names = std::move(installed_names);
  auto loaded = solver::load_channels(database, options);
  if (!loaded) return std::unexpected(make_error(ErrorKind::channel, loaded.error()));
  for (const auto& warning : loaded->warnings) reporter.warning(warning);
  return std::move(*loaded);
}

}  // namespace gpuenv::environment
