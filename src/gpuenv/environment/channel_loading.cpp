#include "gpuenv/environment/channel_loading.hpp"

namespace gpuenv::environment {

std::string ChannelMessage::text() const {
  return "channel " + channel + " (" + subdir + ", " + revision + " records) says: " + message;
}

std::vector<ChannelMessage> channel_messages(const solver::ChannelLoadResult& loaded) {
  std::vector<ChannelMessage> messages;
  for (const auto& subdir : loaded.subdirs) {
    for (const auto& revision : subdir.report.revisions) {
      if (revision.message.empty()) continue;
      messages.push_back({subdir.source.channel_name, subdir.source.subdir, revision.key, revision.message});
    }
  }
  return messages;
}

std::expected<FetchedForLoad, Error> fetch_channels_for(const Settings& settings,
                                                        const std::vector<specs::MatchSpec>& specs,
                                                        const std::vector<std::string>& file_channels, Reach reach,
                                                        Reporter& reporter, std::vector<std::string> installed_names,
                                                        Revalidation revalidation) {
  auto channels = channels_for(settings, specs, file_channels);
  if (!channels) return std::unexpected(channels.error());
  FetchedForLoad result;
  auto& options = result.options;
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
  options.revalidate_alongside = revalidation == Revalidation::alongside_solving;
  auto fetched = solver::fetch_for_loading(options);
  if (!fetched) return std::unexpected(make_error(ErrorKind::channel, fetched.error()));
  result.fetched = std::move(*fetched);
  return result;
}

std::expected<solver::ChannelLoadResult, Error> load_fetched_channels(solver::PackageDatabase& database,
                                                                     FetchedForLoad fetched, Reporter& reporter) {
  auto loaded = solver::load_fetched(database, std::move(fetched.fetched), fetched.options);
  if (!loaded) return std::unexpected(make_error(ErrorKind::channel, loaded.error()));
  for (const auto& warning : loaded->warnings) reporter.warning(warning);
  // CEP 48: a channel operator's message, once per channel subdir and load.
  for (const auto& message : channel_messages(*loaded)) reporter.notice(message.text());
  return std::move(*loaded);
}

std::expected<solver::ChannelLoadResult, Error> load_channels_for(solver::PackageDatabase& database,
                                                                 const Settings& settings,
                                                                 const std::vector<specs::MatchSpec>& specs,
                                                                 const std::vector<std::string>& file_channels,
                                                                 Reach reach, Reporter& reporter,
                                                                 std::vector<std::string> installed_names,
                                                                 Revalidation revalidation) {
  auto fetched =
      fetch_channels_for(settings, specs, file_channels, reach, reporter, std::move(installed_names), revalidation);
  if (!fetched) return std::unexpected(fetched.error());
  return load_fetched_channels(database, std::move(*fetched), reporter);
}

}  // namespace gpuenv::environment
