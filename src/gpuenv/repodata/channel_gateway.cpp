#include "gpuenv/repodata/channel_gateway.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/repodata/sharded_fetch.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::repodata {
namespace {

struct PlannedSubdir {
  ChannelSubdir source;
  std::string fetch_url;  // with token and credentials, for the fetcher only
  specs::ChannelCredentials credentials;
};

std::vector<std::string> subdirs_of(const specs::Channel& channel, const std::string& platform) {
  // A channel written with its subdir ("conda-forge/linux-64") means that one.
  const std::string first = channel.platform() ? *channel.platform() : platform;
  if (first == "noarch") return {"noarch"};
  return {first, "noarch"};
}

std::expected<std::vector<PlannedSubdir>, std::string> plan_subdirs(const GatewayRequest& request) {
  std::vector<PlannedSubdir> planned;
  int rank = 0;
  for (const auto& text : request.channels) {
    std::optional<specs::Channel> parsed;
    try {
      parsed = specs::Channel::parse(text, request.context);
    } catch (const specs::SpecError& error) {
      return std::unexpected(fmt::format("cannot use channel '{}': {}", text, error.what()));
    }
    const specs::Channel& channel = *parsed;
    // Each member of a multichannel (`defaults`) ranks on its own, in order.
    for (const auto& base_url : channel.base_urls()) {
      const auto member = channel.is_multichannel() ? specs::Channel::parse(base_url, request.context) : channel;
      const std::string name = member.canonical_name();
      for (const auto& subdir : subdirs_of(channel, request.platform)) {
        const std::string subdir_url = member.url_for(subdir) + "/";
        const bool duplicate = std::any_of(planned.begin(), planned.end(), [&](const PlannedSubdir& existing) {
          return existing.source.subdir_url == subdir_url;
        });
        if (duplicate) continue;
        PlannedSubdir item;
        item.source.channel_url = member.base_url();
        item.source.channel_name = name;
        item.source.subdir = subdir;
        item.source.subdir_url = subdir_url;
        item.source.channel_rank = rank;
        item.fetch_url = member.authenticated_url_for(subdir) + "/";
        item.credentials = {member.base_url(), member.credentials(), member.token()};
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

// Per planned subdir, its closure's records when it has shards; all nullopt
// when shards were not asked for or cannot decide the closure.
std::expected<std::vector<std::optional<ShardedSubdir>>, std::string> fetch_shards_if_asked(
    const GatewayRequest& request, const std::vector<RepodataRequest>& requests, const FetchOptions& options) {
  std::vector<std::optional<ShardedSubdir>> none(requests.size());
  if (!request.shards || request.cache_dir.empty()) return none;
  ShardedFetchRequest sharded_request;
  sharded_request.subdirs = requests;
  sharded_request.root_names = request.shards->root_names;
  sharded_request.follow_dependencies = request.shards->follow_dependencies;
  sharded_request.dependency_name = request.shards->dependency_name;
  auto sharded = fetch_sharded(sharded_request, options);
  if (!sharded) return std::unexpected(sharded.error().message);
  if (sharded->needs_everything) return none;
  return std::move(sharded->subdirs);
}

}  // namespace

std::expected<FetchedChannels, std::string> fetch_channels(const GatewayRequest& request) {
  auto planned = plan_subdirs(request);
  if (!planned) return std::unexpected(planned.error());

  std::vector<RepodataRequest> requests;
  for (const auto& item : *planned) requests.push_back({item.fetch_url, item.source.channel_name});
  FetchOptions fetch_options;
  fetch_options.cache_dir = request.cache_dir;
  fetch_options.offline = request.offline;
  fetch_options.observer = request.observer;
  fetch_options.client = request.client;

  auto sharded = fetch_shards_if_asked(request, requests, fetch_options);
  if (!sharded) return std::unexpected(sharded.error());
  std::vector<RepodataRequest> unsharded;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!(*sharded)[i]) unsharded.push_back(requests[i]);
  }
  auto fetched_unsharded = fetch_repodata(unsharded, fetch_options);

  FetchedChannels result;
  std::size_t next_unsharded = 0;
  for (std::size_t i = 0; i < planned->size(); ++i) {
    const auto& item = (*planned)[i];
    if (const auto& shards = (*sharded)[i]) {
      result.subdirs.push_back({item.source, shards->json, shards->source_url, true});
      continue;
    }
    const auto& outcome = fetched_unsharded[next_unsharded++];
    if (!outcome) {
      // conda treats a missing platform subdir as empty; noarch must exist.
      if (outcome.error().kind == FetchErrorKind::not_found && item.source.subdir != "noarch") continue;
      if (outcome.error().kind == FetchErrorKind::not_found) {
        return std::unexpected(fmt::format(
            "channel {} has no noarch/repodata.json ({}): it is not a conda channel, or its name or "
            "URL is misspelled",
            item.source.channel_name, outcome.error().url));
      }
      return std::unexpected(outcome.error().message);
    }
    result.subdirs.push_back({item.source, outcome->json_path,
                              outcome->source_url.empty() ? outcome->json_path.string() : outcome->source_url});
  }
  for (const auto& item : *planned) {
    const auto& credentials = item.credentials;
    if (credentials.user_password.empty() && credentials.token.empty()) continue;
    const bool known = std::any_of(result.credentials.begin(), result.credentials.end(),
                                   [&](const auto& other) { return other.base_url == credentials.base_url; });
    if (!known) result.credentials.push_back(credentials);
  }
  return result;
}

}  // namespace gpuenv::repodata
