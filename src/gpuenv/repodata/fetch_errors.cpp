#include "gpuenv/repodata/fetch_errors.hpp"

#include <fmt/format.h>

namespace gpuenv::repodata {
namespace {

std::string_view reason_phrase(long status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 410: return "Gone";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return {};
  }
}

std::string what_failed(const FetchSubject& subject) {
  return fmt::format("could not fetch {} (channel {})", subject.url, subject.channel);
}

std::string attempts_note(int attempts) {
  return attempts > 1 ? fmt::format(" (after {} attempts)", attempts) : std::string();
}

std::string advice_for_status(const FetchSubject& subject, long status) {
  if (status == 404 || status == 410) {
    return fmt::format("check the channel name and that it has a {} subdir", subject.subdir);
  }
  if (status == 401 || status == 407) {
    return "the channel (or proxy) needs credentials: check that they are configured and valid";
  }
  if (status == 403) return "the server refuses access: check the channel's URL and your credentials";
  if (status == 429) return "the server is rate-limiting: wait a while and try again";
  if (status >= 500) return "the server is failing: try again later, or use --offline to work from the cache";
  return "check the channel URL";
}

// Some servers explain an error in a short plain-text body (Artifactory,
// anaconda.org: "token expired"); that is worth showing. HTML pages are not.
std::string server_explanation(const std::string& body) {
  std::string_view text = body;
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\r')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (text.empty() || text.size() > 200 || text.front() == '<') return {};
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') return {};
  }
  return fmt::format(" (the server says: \"{}\")", text);
}

}  // namespace

std::string describe_status(long status) {
  const auto reason = reason_phrase(status);
  return reason.empty() ? fmt::format("HTTP {}", status) : fmt::format("HTTP {} {}", status, reason);
}

FetchError status_error(const FetchSubject& subject, const net::HttpResponse& response, int attempts) {
  const bool missing = response.status == 404 || response.status == 410;
  return FetchError{missing ? FetchErrorKind::not_found : FetchErrorKind::http_status, subject.url,
                    subject.channel,
                    fmt::format("{}: {}{}{}: {}", what_failed(subject), describe_status(response.status),
                                server_explanation(response.error_body), attempts_note(attempts),
                                advice_for_status(subject, response.status))};
}

FetchError transport_error(const FetchSubject& subject, const net::HttpResponse& response, int attempts,
                           std::chrono::seconds stall_timeout) {
  std::string why;
  std::string advice;
  switch (response.failure) {
    case net::TransportFailure::timed_out:
      why = fmt::format("no data arrived for {} s ({})", stall_timeout.count(), response.failure_detail);
      advice = "check the network connection and proxy settings, raise the timeout, or use --offline to work from the cache";
      break;
    case net::TransportFailure::truncated:
      why = fmt::format("the connection closed before the whole file arrived ({})", response.failure_detail);
      advice = "try again later, or use --offline to work from the cache";
      break;
    case net::TransportFailure::name_resolution:
      why = fmt::format("the host name does not resolve ({})", response.failure_detail);
      advice = "check the channel URL, the network connection and DNS/proxy settings";
      break;
    case net::TransportFailure::tls:
      // The detail already says which setting to change (net::describe_failure).
      return FetchError{FetchErrorKind::network, subject.url, subject.channel,
                        fmt::format("{}: the secure connection failed: {}", what_failed(subject),
                                    response.failure_detail)};
    default:
      why = response.failure_detail;
      advice = "check the network connection and proxy settings, or use --offline to work from the cache";
      break;
  }
  return FetchError{FetchErrorKind::network, subject.url, subject.channel,
                    fmt::format("{}: {}{}: {}", what_failed(subject), why, attempts_note(attempts), advice)};
}

FetchError invalid_body_error(const FetchSubject& subject, const BodyProblem& problem,
                              bool kept_cached_copy) {
  return FetchError{
      FetchErrorKind::invalid_body, subject.url, subject.channel,
      fmt::format("{}: the server sent something that is not complete repodata: {}; {}",
                  what_failed(subject), problem.message,
                  kept_cached_copy
                      ? "the previously cached copy was kept, but it may be out of date; try again "
                        "later or use --offline"
                      : "the channel (or a proxy in between) serves a broken file; try again later "
                        "or tell the channel's maintainers")};
}

FetchError cache_error(const FetchSubject& subject, const std::filesystem::path& cache_dir,
                       const std::string& why) {
  return FetchError{FetchErrorKind::cache_io, subject.url, subject.channel,
                    fmt::format("could not cache the repodata of {} (channel {}) in {}: {}: check "
                                "that the directory is writable and the disk has space",
                                subject.url, subject.channel, cache_dir.string(), why)};
}

FetchError not_cached_error(const FetchSubject& subject, const std::filesystem::path& cache_dir) {
  return FetchError{FetchErrorKind::not_cached, subject.url, subject.channel,
                    fmt::format("cannot use {} (channel {}) offline: it has never been downloaded "
                                "into the cache {}; run once without --offline to download it",
                                subject.url, subject.channel, cache_dir.string())};
}

FetchError local_missing_error(const FetchSubject& subject, const std::filesystem::path& dir) {
  return FetchError{FetchErrorKind::not_found, subject.url, subject.channel,
                    fmt::format("could not read the local channel subdir {} (channel {}): it has no "
                                "repodata.json or repodata.json.zst: check the path, and run `gpuenv "
                                "index` (or conda-index) on the channel to create them",
                                dir.string(), subject.channel)};
}

}  // namespace gpuenv::repodata
