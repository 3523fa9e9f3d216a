#include "gpuenv/repodata/channel_gateway.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <future>
#include <optional>
#include <vector>

#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/repodata/shard_cache.hpp"
#include "gpuenv/repodata/shard_index_fetch.hpp"
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

FetchOptions fetch_options_for(const GatewayRequest& request) {
  FetchOptions options;
  options.cache_dir = request.cache_dir;
  options.offline = request.offline;
  options.observer = request.observer;
  options.client = request.client;
  options.on_json_download = request.on_json_download;
  return options;
}

// `just_revalidated`: subdir URLs whose shard index was found current a
// moment ago (FetchOptions::just_revalidated).
std::expected<FetchedChannels, std::string> fetch_planned(const GatewayRequest& request,
                                                          const std::vector<PlannedSubdir>& planned,
                                                          std::vector<std::string> just_revalidated) {
  std::vector<RepodataRequest> requests;
  for (const auto& item : planned) requests.push_back({item.fetch_url, item.source.channel_name});
  FetchOptions fetch_options = fetch_options_for(request);
  fetch_options.just_revalidated = std::move(just_revalidated);

  auto sharded = fetch_shards_if_asked(request, requests, fetch_options);
  if (!sharded) return std::unexpected(sharded.error());
  std::vector<RepodataRequest> unsharded;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!(*sharded)[i]) unsharded.push_back(requests[i]);
  }
  auto fetched_unsharded = fetch_repodata(unsharded, fetch_options);

  FetchedChannels result;
  std::size_t next_unsharded = 0;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const auto& item = planned[i];
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
  for (const auto& item : planned) {
    const auto& credentials = item.credentials;
    if (credentials.user_password.empty() && credentials.token.empty()) continue;
    const bool known = std::any_of(result.credentials.begin(), result.credentials.end(),
                                   [&](const auto& other) { return other.base_url == credentials.base_url; });
    if (!known) result.credentials.push_back(credentials);
  }
  return result;
}

// The background half of revalidate_alongside. It never writes the cache
// while the caller reads it: a 304's new freshness is recorded by
// still_current(), on the caller's thread.
class BackgroundRevalidation final : public IndexRevalidation {
 public:
  BackgroundRevalidation(std::vector<ShardIndexSource> sources, FetchOptions options)
      : sources_(std::move(sources)), cache_(options.cache_dir / "shards") {
    options.on_json_download = nullptr;  // it may outlive whoever listens
    answers_ = std::async(std::launch::async, [this, options = std::move(options)] {
      try {
        net::HttpClient client(net::HttpClientOptions{options.client, sources_.size()});
        return revalidate_cached_shard_indexes(sources_, cache_, options, ShardLimits{}.max_compressed_bytes, client);
      } catch (const std::exception&) {
        // Not current: the ordinary fetch that follows meets the same
        // problem on the caller's thread and reports it.
        return std::vector<CachedIndexCheck>(sources_.size());
      }
    });
  }
  ~BackgroundRevalidation() override {
    if (answers_.valid()) answers_.wait();
  }

  bool still_current() override {
    if (current_) return *current_;
    const auto checks = answers_.get();
    current_ = std::all_of(checks.begin(), checks.end(), [](const CachedIndexCheck& check) { return check.current; });
    for (std::size_t i = 0; i < checks.size() && *current_; ++i) {
      // Only the freshness changes; a failure to record it costs a request next time.
      if (checks[i].refreshed) (void)cache_.write_index_state(sources_[i].location.url(), *checks[i].refreshed);
    }
    return *current_;
  }

 private:
  std::vector<ShardIndexSource> sources_;
  ShardCache cache_;
  std::future<std::vector<CachedIndexCheck>> answers_;
  std::optional<bool> current_;
};

// revalidate_alongside: the remote subdirs whose cached shard index can be
// revalidated alongside; nullopt when one has none cached (or none is
// remote), which leaves the request to the ordinary fetch.
std::optional<std::vector<ShardIndexSource>> revalidatable_subdirs(const GatewayRequest& request,
                                                                  const std::vector<PlannedSubdir>& planned) {
  if (!request.shards || request.cache_dir.empty() || request.offline) return std::nullopt;
  const ShardCache cache(request.cache_dir / "shards");
  std::vector<ShardIndexSource> remote;
  for (const auto& item : planned) {
    auto location = SubdirLocation::parse(item.fetch_url);
    if (!location) return std::nullopt;  // the ordinary fetch says why
    if (location->is_local()) continue;  // read in place: nothing to revalidate
    if (!cache.has_index(location->url())) return std::nullopt;
    remote.push_back({std::move(*location), item.source.channel_name});
  }
  if (remote.empty()) return std::nullopt;
  return remote;
}

// The cache's answer now, the server's later (FetchedChannels::revalidation);
// the ordinary fetch when the cache cannot answer (the request needs shards
// that are not cached, or a subdir's repodata.json).
std::expected<FetchedChannels, std::string> fetch_from_cache_revalidating(const GatewayRequest& request,
                                                                         const std::vector<PlannedSubdir>& planned,
                                                                         std::vector<ShardIndexSource> remote) {
  std::vector<std::string> remote_urls;
  for (const auto& source : remote) remote_urls.push_back(source.location.url());
  auto revalidation = std::make_shared<BackgroundRevalidation>(std::move(remote), fetch_options_for(request));
  GatewayRequest from_cache = request;
  from_cache.offline = true;
  from_cache.observer = nullptr;  // what it reads may be thrown away: progress comes from the fetch that counts
  auto fetched = fetch_planned(from_cache, planned, {});
  const auto served_by_shards_or_in_place = [&](const FetchedSubdir& subdir) {
    if (subdir.sharded) return true;
    const auto location = SubdirLocation::parse(subdir.source.subdir_url);
    return location && location->is_local();
  };
  if (fetched && std::all_of(fetched->subdirs.begin(), fetched->subdirs.end(), served_by_shards_or_in_place)) {
    fetched->revalidation = std::move(revalidation);
    return fetched;
  }
  // The ordinary fetch, once the background has answered (it must not race
  // the fetch's writes to the cache); indexes it found current are not
  // asked about again.
  const bool current = revalidation->still_current();
  return fetch_planned(request, planned, current ? std::move(remote_urls) : std::vector<std::string>{});
}

}  // namespace

std::expected<FetchedChannels, std::string> fetch_channels(const GatewayRequest& request) {
  auto planned = plan_subdirs(request);
  if (!planned) return std::unexpected(planned.error());
  if (request.revalidate_alongside) {
    if (auto remote = revalidatable_subdirs(request, *planned)) {
      return fetch_from_cache_revalidating(request, *planned, std::move(*remote));
    }
  }
  return fetch_planned(request, *planned, {});
}

}  // namespace gpuenv::repodata
