#include "gpuenv/solver/channel_loader.hpp"

#include <fmt/format.h>

#include <optional>

#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::solver {
namespace {

struct PlannedSubdir {
  ChannelSubdir source;
  std::string fetch_url;  // with token and credentials, for the fetcher only
};

std::vector<std::string> subdirs_of(const specs::Channel& channel, const std::string& platform) {
  // A channel written with its subdir ("conda-forge/linux-64") means that one.
  const std::string first = channel.platform() ? *channel.platform() : platform;
  if (first == "noarch") return {"noarch"};
  return {first, "noarch"};
}

std::expected<std::vector<PlannedSubdir>, std::string> plan(const ChannelLoadOptions& options) {
  std::vector<PlannedSubdir> planned;
  int rank = 0;
  for (const auto& text : options.channels) {
    std::optional<specs::Channel> parsed;
    try {
      parsed = specs::Channel::parse(text, options.context);
    } catch (const specs::SpecError& error) {
      return std::unexpected(fmt::format("cannot use channel '{}': {}", text, error.what()));
    }
    const specs::Channel& channel = *parsed;
    // Each member of a multichannel (`defaults`) ranks on its own, in order.
    for (const auto& base_url : channel.base_urls()) {
      const auto member = channel.is_multichannel() ? specs::Channel::parse(base_url, options.context) : channel;
      const std::string name = member.canonical_name();
      for (const auto& subdir : subdirs_of(channel, options.platform)) {
        const std::string subdir_url = member.url_for(subdir) + "/";
        bool duplicate = false;
        for (const auto& existing : planned) duplicate = duplicate || existing.source.subdir_url == subdir_url;
        if (duplicate) continue;
        PlannedSubdir item;
        item.source.channel_url = member.base_url();
        item.source.channel_name = name;
        item.source.subdir = subdir;
        item.source.subdir_url = subdir_url;
        item.source.channel_rank = rank;
        item.fetch_url = member.authenticated_url_for(subdir) + "/";
        planned.push_back(std::move(item));
      }
      ++rank;
    }
  }
  if (planned.empty()) {
    return std::unexpected(std::string(
        "no channels to search: name one with -c CHANNEL (or drop --override-channels)"));
  }
  return planned;
}

}  // namespace

std::expected<ChannelLoadResult, std::string> load_channels(PackageDatabase& database,
                                                            const ChannelLoadOptions& options) {
  auto planned = plan(options);
  if (!planned) return std::unexpected(planned.error());

  std::vector<repodata::RepodataRequest> requests;
  for (const auto& item : *planned) requests.push_back({item.fetch_url, item.source.channel_name});
  repodata::FetchOptions fetch_options;
  fetch_options.cache_dir = options.cache_dir.empty() ? std::filesystem::path() : options.cache_dir / "repodata";
  fetch_options.offline = options.offline;
  fetch_options.show_progress = options.show_progress;
  const auto fetched = repodata::fetch_repodata(requests, fetch_options);

  ChannelLoadResult result;
  LoadOptions load_options;
  if (!options.cache_dir.empty()) load_options.solv_cache_dir = options.cache_dir / "solv";
  for (std::size_t i = 0; i < planned->size(); ++i) {
    const auto& item = (*planned)[i];
    const auto& outcome = fetched[i];
    if (!outcome) {
      // conda treats a missing platform subdir as empty; noarch must exist.
      if (outcome.error().kind == repodata::FetchErrorKind::not_found && item.source.subdir != "noarch") {
        continue;
      }
      if (outcome.error().kind == repodata::FetchErrorKind::not_found) {
        return std::unexpected(fmt::format(
            "channel {} has no noarch/repodata.json ({}): it is not a conda channel, or its name or "
            "URL is misspelled",
            item.source.channel_name, outcome.error().url));
      }
      return std::unexpected(outcome.error().message);
    }
    load_options.source_label = outcome->source_url.empty() ? outcome->json_path.string() : outcome->source_url;
    auto loaded = database.add_repodata(outcome->json_path, item.source, load_options);
    if (!loaded) return std::unexpected(loaded.error().message);
    if (loaded->skipped_records > 0) {
      std::string examples;
      for (const auto& skipped : loaded->first_skipped) {
        examples += fmt::format("{}{} ({})", examples.empty() ? "" : ", ", skipped.filename, skipped.reason);
      }
      result.warnings.push_back(fmt::format("{}: skipped {} unusable record(s): {}", load_options.source_label,
                                            loaded->skipped_records, examples));
    }
    if (!loaded->solv_cache_write_error.empty()) result.warnings.push_back(loaded->solv_cache_write_error);
    result.subdirs.push_back({item.source, std::move(*loaded)});
  }
  return result;
}

}  // namespace gpuenv::solver
