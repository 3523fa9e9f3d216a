#include "gpuenv/repodata/shard_index_fetch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "gpuenv/repodata/fetch_errors.hpp"
#include "gpuenv/repodata/repodata_cache.hpp"
#include "gpuenv/specs/url_credentials.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::repodata {
namespace {

constexpr std::string_view kIndexFile = "repodata_shards.msgpack.zst";

struct DownloadState {
  net::HttpClient& client;
  std::string url;
  std::vector<std::string> headers;
  std::size_t max_bytes;
  net::RetryPolicy retry;
  std::function<void(BoundedDownloadResult)> done;
  BoundedDownloadResult result;
};

void submit(const std::shared_ptr<DownloadState>& state, std::chrono::steady_clock::time_point not_before) {
  ++state->result.attempts;
  state->result.body.clear();
  state->result.too_large = false;
  net::HttpRequest request;
  request.url = state->url;
  request.headers = state->headers;
  request.on_body = [raw = state.get()](std::string_view piece) {
    if (raw->result.body.size() + piece.size() > raw->max_bytes) {
      raw->result.too_large = true;
      return false;
    }
    raw->result.body.append(piece);
    return true;
  };
  state->client.submit(
      std::move(request),
      [state](net::HttpResponse response) {
        if (!state->result.too_large && net::RetryPolicy::is_transient(response) &&
            state->retry.may_retry(state->result.attempts)) {
          return submit(state, std::chrono::steady_clock::now() + state->retry.delay_after(state->result.attempts));
        }
        state->result.response = std::move(response);
        state->done(std::move(state->result));
      },
      not_before);
}

bool means_missing(long status) { return status == 404 || status == 403 || status == 410; }

std::vector<std::string> conditional_headers(const RepodataState& state) {
  std::vector<std::string> headers;
  if (!state.etag.empty()) headers.push_back("If-None-Match: " + state.etag);
  if (!state.mod.empty()) headers.push_back("If-Modified-Since: " + state.mod);
  return headers;
}

// The cached state after an answer: refreshed now, with the validators the
// response brought.
RepodataState answered_state(RepodataState state, const std::string& masked_url, const net::HttpResponse& response) {
  state.url = masked_url;
  state.refreshed = std::chrono::system_clock::now();
  if (!response.etag.empty()) state.etag = response.etag;
  if (!response.last_modified.empty()) state.mod = response.last_modified;
  if (!response.cache_control.empty()) state.cache_control = response.cache_control;
  return state;
}

FetchSubject subject_of(const ShardIndexSource& source) {
  return FetchSubject{specs::mask_credentials(source.location.url() + std::string(kIndexFile)), source.channel,
                      source.location.subdir_name()};
}

ShardIndexOutcome local_index(const ShardIndexSource& source, std::size_t max_bytes) {
  const auto path = source.location.local_dir() / kIndexFile;
  const auto stamp = stamp_of(path);
  if (!stamp) return std::nullopt;
  auto bytes = util::read_regular_file_at_most(path, max_bytes);
  if (!bytes) {
    return std::unexpected(FetchError{FetchErrorKind::invalid_body, path.string(), source.channel,
                                      fmt::format("could not use {} (channel {}): {}", path.string(), source.channel,
                                                  bytes.error().message)});
  }
  return FetchedShardIndex{std::move(*bytes), fmt::format("{}-{}", stamp->size, stamp->mtime_ns), path.string()};
}

}  // namespace

void start_bounded_download(net::HttpClient& client, std::string url, std::vector<std::string> headers,
                            std::size_t max_bytes, net::RetryPolicy retry,
                            std::function<void(BoundedDownloadResult)> done) {
  auto state = std::make_shared<DownloadState>(
      DownloadState{client, std::move(url), std::move(headers), max_bytes, retry, std::move(done), {}});
  submit(state, {});
}

std::vector<ShardIndexOutcome> fetch_shard_indexes(const std::vector<ShardIndexSource>& sources,
                                                   const ShardCache& cache, const FetchOptions& options,
                                                   std::size_t max_bytes, net::HttpClient& client) {
  std::vector<ShardIndexOutcome> outcomes(sources.size(), std::nullopt);
  std::vector<std::optional<CachedShardIndex>> cached(sources.size());
  bool submitted = false;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& source = sources[i];
    if (source.location.is_local()) {
      outcomes[i] = local_index(source, max_bytes);
      continue;
    }
    const std::string& subdir_url = source.location.url();
    const std::string masked = specs::mask_credentials(subdir_url + std::string(kIndexFile));
    cached[i] = cache.load_index(subdir_url, max_bytes);
    const auto use_cached = [&] {
      outcomes[i] = FetchedShardIndex{cached[i]->bytes, cached[i]->version, masked};
    };
    if (options.offline) {
      if (cached[i]) use_cached();
      continue;  // nothing cached: repodata.json's cache may still serve
    }
    const bool just_revalidated = std::find(options.just_revalidated.begin(), options.just_revalidated.end(),
                                            subdir_url) != options.just_revalidated.end();
    if (cached[i] && cached[i]->state &&
        (just_revalidated || is_fresh(*cached[i]->state, options.ttl, std::chrono::system_clock::now()))) {
      use_cached();
      continue;
    }
    if (!cached[i] && cache.known_without_shards(subdir_url)) continue;

    const bool conditional = cached[i] && cached[i]->state && cached[i]->state->url == masked;
    std::vector<std::string> headers = conditional ? conditional_headers(*cached[i]->state) : std::vector<std::string>{};
    submitted = true;
    start_bounded_download(
        client, subdir_url + std::string(kIndexFile), std::move(headers), max_bytes, options.retry,
        [&, i, masked, conditional](BoundedDownloadResult result) {
          const auto& source = sources[i];
          const auto& response = result.response;
          const FetchSubject subject = subject_of(source);
          if (result.too_large) {
            outcomes[i] = std::unexpected(FetchError{
                FetchErrorKind::invalid_body, masked, source.channel,
                fmt::format("could not use {} (channel {}): the shard index is larger than {}; the server "
                            "is misbehaving, or this is not a conda channel",
                            masked, source.channel, util::describe_byte_count(max_bytes))});
            return;
          }
          if (!response.completed()) {
            outcomes[i] = std::unexpected(
                transport_error(subject, response, result.attempts, options.client.stall_timeout));
            return;
          }
          RepodataState state = answered_state(conditional ? *cached[i]->state : RepodataState{}, masked, response);
          if (response.status == 304 && conditional) {
            // Only the freshness changes; a failure to record it costs a request next time.
            (void)cache.write_index_state(source.location.url(), state);
            outcomes[i] = FetchedShardIndex{std::move(cached[i]->bytes), cached[i]->version, masked, false, true};
            return;
          }
          if (means_missing(response.status)) {
            cache.remember_without_shards(source.location.url());
            return;  // no shards here: repodata.json
          }
          if (response.status < 200 || response.status >= 300) {
            outcomes[i] = std::unexpected(status_error(subject, response, result.attempts));
            return;
          }
          auto version = cache.store_index(source.location.url(), result.body, std::move(state));
          if (!version) {
            outcomes[i] = std::unexpected(cache_error(subject, cache.dir(), version.error()));
            return;
          }
          outcomes[i] = FetchedShardIndex{std::move(result.body), *version, masked, true, false};
        });
  }
  if (submitted) client.run();
  return outcomes;
}

std::vector<CachedIndexCheck> revalidate_cached_shard_indexes(const std::vector<ShardIndexSource>& sources,
                                                              const ShardCache& cache, const FetchOptions& options,
                                                              std::size_t max_bytes, net::HttpClient& client) {
  std::vector<CachedIndexCheck> checks(sources.size());
  bool submitted = false;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::string& subdir_url = sources[i].location.url();
    const std::string masked = specs::mask_credentials(subdir_url + std::string(kIndexFile));
    const auto cached = cache.load_index(subdir_url, max_bytes);
    if (!cached || !cached->state || cached->state->url != masked) continue;  // nothing to ask with: not current
    if (is_fresh(*cached->state, options.ttl, std::chrono::system_clock::now())) {
      checks[i].current = true;
      continue;
    }
    auto headers = conditional_headers(*cached->state);
    if (headers.empty()) continue;
    submitted = true;
    start_bounded_download(client, subdir_url + std::string(kIndexFile), std::move(headers), max_bytes, options.retry,
                           [&checks, i, masked, state = *cached->state](BoundedDownloadResult result) {
                             // Anything but a 304 (a new index, an error) leaves it not current.
                             if (!result.response.completed() || result.response.status != 304) return;
                             checks[i] = {true, answered_state(state, masked, result.response)};
                           });
  }
  if (submitted) client.run();
  return checks;
}

}  // namespace gpuenv::repodata
