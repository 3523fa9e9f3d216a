#include "gpuenv/repodata/fetch.hpp"

#include <map>
#include <memory>

#include "gpuenv/repodata/fetch_errors.hpp"
#include "gpuenv/repodata/fetch_observer.hpp"
#include "gpuenv/repodata/local_fetch.hpp"
#include "gpuenv/repodata/remote_fetch.hpp"
#include "gpuenv/repodata/repodata_cache.hpp"
#include "gpuenv/repodata/subdir_location.hpp"
#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::repodata {
namespace {

// Answers a subdir from the cache alone when that is allowed: offline, or
// the cached copy is still fresh. nullopt: the server must be asked.
std::optional<FetchResult> answer_from_cache(const SubdirLocation& location, const FetchSubject& subject,
                                             const std::optional<CacheEntry>& cached,
                                             const FetchOptions& options) {
  if (options.offline) {
    if (!cached) return std::unexpected(not_cached_error(subject, options.cache_dir));
    const std::string source = cached->state ? cached->state->url : location.repodata_url(false);
    return FetchedRepodata{cached->json_path, RepodataOrigin::cache, source};
  }
  if (cached && cached->state && is_fresh(*cached->state, options.ttl, std::chrono::system_clock::now())) {
    return FetchedRepodata{cached->json_path, RepodataOrigin::cache, cached->state->url};
  }
  return std::nullopt;
}

}  // namespace

std::vector<FetchResult> fetch_repodata(const std::vector<RepodataRequest>& requests,
                                        const FetchOptions& options) {
  std::vector<std::optional<FetchResult>> results(requests.size());
  const RepodataCache cache(options.cache_dir);
  FetchObserver nobody;
  FetchObserver& observer = options.observer != nullptr ? *options.observer : nobody;
  std::unique_ptr<net::HttpClient> client;
  std::vector<std::pair<std::size_t, std::unique_ptr<RemoteSubdirFetch>>> downloads;
  std::map<std::string, std::size_t> first_request_of_url;
  std::vector<std::pair<std::size_t, std::size_t>> duplicates;  // (request, same as request)
  std::optional<std::expected<void, std::string>> cache_ready;

  for (std::size_t i = 0; i < requests.size(); ++i) {
    const RepodataRequest& request = requests[i];
    auto location = SubdirLocation::parse(request.url);
    if (!location) {
      results[i] = std::unexpected(FetchError{FetchErrorKind::invalid_location,
                                              specs::mask_credentials(request.url),
                                              request.channel_display_name,
                                              specs::mask_credentials(location.error()) + " (channel " +
                                                  request.channel_display_name + ")"});
      continue;
    }
    // Two requests for one subdir would race to write one cache entry.
    const auto [first, inserted] = first_request_of_url.emplace(location->url(), i);
    if (!inserted) {
      duplicates.emplace_back(i, first->second);
      continue;
    }
    const FetchSubject subject{specs::mask_credentials(location->repodata_url(false)),
                               request.channel_display_name, location->subdir_name()};
    if (location->is_local()) {
      results[i] = fetch_local_subdir(*location, request.channel_display_name, cache);
      continue;
    }
    auto cached = cache.load(location->url());
    if (auto answer = answer_from_cache(*location, subject, cached, options)) {
      results[i] = std::move(*answer);
      continue;
    }
    if (!cache_ready) cache_ready = cache.prepare();
    if (!*cache_ready) {
      results[i] = std::unexpected(cache_error(subject, cache.dir(), cache_ready->error()));
      continue;
    }
    if (!client) {
      client = std::make_unique<net::HttpClient>(net::HttpClientOptions{options.client, options.max_parallel});
    }
    auto download = std::make_unique<RemoteSubdirFetch>(
        std::move(*location), request.channel_display_name, std::move(cached),
        RemoteFetchContext{cache, options, *client, observer});
    download->start();
    downloads.emplace_back(i, std::move(download));
  }

  if (client) client->run();
  for (auto& [index, download] : downloads) results[index] = *download->result();
  for (const auto& [index, same_as] : duplicates) results[index] = results[same_as];

  std::vector<FetchResult> finished;
  finished.reserve(results.size());
  for (auto& result : results) {
    // Shown in messages and warnings: without the channel's secrets.
    if (*result) (*result)->source_url = specs::mask_credentials((*result)->source_url);
    finished.push_back(std::move(*result));
  }
  return finished;
}

}  // namespace gpuenv::repodata
