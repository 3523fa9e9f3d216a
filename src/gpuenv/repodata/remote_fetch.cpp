#include "gpuenv/repodata/remote_fetch.hpp"

#include <fmt/format.h>

#include <utility>

#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::repodata {
namespace {

bool is_success(long status) { return status >= 200 && status < 300; }

// Servers without a .zst answer 404; object stores such as S3 answer 403 for
// a missing key when listing is not allowed. Either way: try repodata.json.
bool means_variant_missing(long status) { return status == 404 || status == 403 || status == 410; }

}  // namespace

RemoteSubdirFetch::RemoteSubdirFetch(SubdirLocation location, std::string channel,
                                     std::optional<CacheEntry> cached, RemoteFetchContext context)
    : location_(std::move(location)),
      channel_(std::move(channel)),
      cached_(std::move(cached)),
      context_(context),
      retry_{context.options.retry} {}

FetchSubject RemoteSubdirFetch::subject() const {
  return FetchSubject{specs::mask_credentials(location_.repodata_url(zst_)), channel_,
                      location_.subdir_name()};
}

void RemoteSubdirFetch::start() {
  progress_id_ = context_.observer.subdir_started(channel_ + "/" + location_.subdir_name());
  bool zst_known_missing = false;
  if (have_cached_state() && cached_->state->has_zst) {
    const auto& has_zst = *cached_->state->has_zst;
    zst_known_missing = !has_zst.available &&
                        std::chrono::system_clock::now() - has_zst.last_checked < kZstRecheckInterval;
  }
  request(!zst_known_missing, {});
}

void RemoteSubdirFetch::request(bool zst, std::chrono::steady_clock::time_point not_before) {
  zst_ = zst;
  ++attempts_;
  writer_.reset();
  cache_write_failure_.reset();
  net::HttpRequest http;
  http.url = location_.repodata_url(zst);
  // Validators belong to the URL they came from: an ETag of repodata.json
  // says nothing about repodata.json.zst.
  // The state names the URL masked (no secrets rest in the cache).
  conditional_ = have_cached_state() && cached_->state->url == specs::mask_credentials(http.url) &&
                 (!cached_->state->etag.empty() || !cached_->state->mod.empty());
  if (conditional_) {
    if (!cached_->state->etag.empty()) http.headers.push_back("If-None-Match: " + cached_->state->etag);
    if (!cached_->state->mod.empty()) http.headers.push_back("If-Modified-Since: " + cached_->state->mod);
  }
  http.on_body = [this](std::string_view bytes) { return receive_body(bytes); };
  context_.client.submit(std::move(http), [this](net::HttpResponse response) { on_response(std::move(response)); },
                         not_before);
}

bool RemoteSubdirFetch::receive_body(std::string_view bytes) {
  if (!writer_) {
    // The temporary file appears only once a body arrives: a 304 or a 404
    // never touches the cache directory.
    auto file = context_.cache.begin_write(location_.url());
    if (!file) {
      cache_write_failure_ = file.error();
      return false;
    }
    const auto temp_path = file->temp_path();
    const auto json_path = file->final_path();
    writer_ = std::make_unique<RepodataBodyWriter>(std::move(*file), zst_);
    if (context_.options.on_json_download) {
      auto growth = std::make_shared<FileGrowth>();
      writer_->report_growth_to(growth);
      context_.options.on_json_download(JsonDownload{specs::mask_credentials(location_.repodata_url(zst_)), json_path,
                                                     temp_path, std::move(growth)});
    }
  }
  context_.observer.subdir_received(progress_id_, bytes.size());
  return writer_->write(bytes);
}

void RemoteSubdirFetch::on_response(net::HttpResponse response) {
  if (cache_write_failure_) return fail(cache_error(subject(), context_.cache.dir(), *cache_write_failure_));
  if (response.failure == net::TransportFailure::receiver_aborted && writer_ && writer_->problem()) {
    const BodyProblem problem = *writer_->problem();
    writer_.reset();  // removes the partial file
    if (problem.local_io) return fail(cache_error(subject(), context_.cache.dir(), problem.message));
    return fail(invalid_body_error(subject(), problem, cached_.has_value()));
  }
  if (!response.completed()) {
    if (net::RetryPolicy::is_transient(response) && retry_.may_retry(attempts_)) return retry_after_backoff();
    return fail(transport_error(subject(), response, attempts_, context_.options.client.stall_timeout));
  }
  if (response.status == 304) {
    if (conditional_) return keep_not_modified(response);
    return fail(FetchError{FetchErrorKind::http_status, subject().url, channel_,
                           fmt::format("could not fetch {} (channel {}): the server answered 304 Not "
                                       "Modified to a request that had nothing cached; the server "
                                       "or a proxy in between is misbehaving",
                                       subject().url, channel_)});
  }
  if (is_success(response.status)) return store_download(response);
  if (zst_ && means_variant_missing(response.status)) {
    zst_found_missing_ = true;
    attempts_ = 0;
    return request(false, {});
  }
  if (net::RetryPolicy::is_transient(response) && retry_.may_retry(attempts_)) return retry_after_backoff();
  fail(status_error(subject(), response, attempts_));
}

void RemoteSubdirFetch::retry_after_backoff() {
  request(zst_, std::chrono::steady_clock::now() + retry_.delay_after(attempts_));
}

void RemoteSubdirFetch::store_download(const net::HttpResponse& response) {
  if (!writer_) {
    return fail(invalid_body_error(subject(), BodyProblem{"the body is empty", false, false},
                                   cached_.has_value()));
  }
  if (auto checked = writer_->finish(response.body_bytes, response.content_length); !checked) {
    writer_.reset();
    const BodyProblem& problem = checked.error();
    if (problem.retryable && retry_.may_retry(attempts_)) return retry_after_backoff();
    if (problem.local_io) return fail(cache_error(subject(), context_.cache.dir(), problem.message));
    return fail(invalid_body_error(subject(), problem, cached_.has_value()));
  }
  const auto now = std::chrono::system_clock::now();
  RepodataState state;
  state.url = specs::mask_credentials(location_.repodata_url(zst_));
  state.etag = response.etag;
  state.mod = response.last_modified;
  state.cache_control = response.cache_control;
  state.refreshed = now;
  if (zst_) state.has_zst = VariantAvailability{true, now};
  else if (zst_found_missing_) state.has_zst = VariantAvailability{false, now};
  else if (have_cached_state()) state.has_zst = cached_->state->has_zst;  // skipped: known missing

  const std::uint64_t received = writer_->body_bytes();
  auto stored = context_.cache.store(location_.url(), writer_->take_file(), std::move(state));
  writer_.reset();
  if (!stored) return fail(cache_error(subject(), context_.cache.dir(), stored.error()));
  succeed(FetchedRepodata{stored->json_path, RepodataOrigin::downloaded, location_.repodata_url(zst_)},
          fmt::format("{} downloaded", format_bytes(received)));
}

void RemoteSubdirFetch::keep_not_modified(const net::HttpResponse& response) {
  const auto now = std::chrono::system_clock::now();
  RepodataState state = *cached_->state;
  state.refreshed = now;
  // A 304 may carry updated validators and freshness (RFC 9111 4.3.4).
  if (!response.etag.empty()) state.etag = response.etag;
  if (!response.last_modified.empty()) state.mod = response.last_modified;
  if (!response.cache_control.empty()) state.cache_control = response.cache_control;
  if (zst_) state.has_zst = VariantAvailability{true, now};
  else if (zst_found_missing_) state.has_zst = VariantAvailability{false, now};
  if (auto written = context_.cache.write_state(location_.url(), state); !written) {
    return fail(cache_error(subject(), context_.cache.dir(), written.error()));
  }
  succeed(FetchedRepodata{cached_->json_path, RepodataOrigin::not_modified, state.url}, "up to date");
}

void RemoteSubdirFetch::succeed(FetchedRepodata fetched, std::string_view outcome) {
  context_.observer.subdir_finished(progress_id_, outcome);
  result_ = std::move(fetched);
}

void RemoteSubdirFetch::fail(FetchError error) {
  writer_.reset();
  context_.observer.subdir_finished(progress_id_, "failed");
  result_ = std::unexpected(std::move(error));
}

}  // namespace gpuenv::repodata
