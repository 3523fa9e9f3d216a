#include "gpuenv/net/transfer_policy.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::net {
namespace {

bool mentions(std::string_view text, std::string_view word) { return text.find(word) != std::string_view::npos; }

// OpenSSL's words for a server that wanted a client certificate and got
// none (TLS 1.3 sends the alert after the handshake; 1.2 fails it).
bool client_certificate_refused(std::string_view text) {
  return mentions(text, "certificate required") || mentions(text, "alert bad certificate") ||
         mentions(text, "alert handshake failure") || mentions(text, "unknown ca");
}

std::string tls_advice(CURLcode code, std::string_view text, const ClientSettings& settings) {
  const TlsSettings& tls = settings.tls;
  if (code == CURLE_SSL_CERTPROBLEM) {
    return fmt::format("the client certificate cannot be used: check client_ssl_cert ({}) and client_ssl_cert_key ({})",
                       tls.client_cert.empty() ? "not set" : tls.client_cert,
                       tls.client_key.empty() ? "not set" : tls.client_key);
  }
  if (code == CURLE_SSL_CACERT_BADFILE) {
    return fmt::format("the CA bundle {} (from {}) cannot be read: point ssl_verify or REQUESTS_CA_BUNDLE at a "
                       "readable PEM file",
                       tls.ca_bundle, tls.origin);
  }
  if (code == CURLE_PEER_FAILED_VERIFICATION) {
    const std::string trusted = tls.ca_bundle.empty()
                                    ? std::string("the system's CA store")
                                    : fmt::format("{} (from {})", tls.ca_bundle, tls.origin);
    return fmt::format(
        "the server's certificate is not trusted by {}: if the server (or a TLS-intercepting proxy) uses a private "
        "CA, set ssl_verify: /path/to/ca-bundle.pem in .condarc or REQUESTS_CA_BUNDLE=/path/to/ca-bundle.pem; "
        "ssl_verify: false turns checking off (insecure)",
        trusted);
  }
  if (client_certificate_refused(text)) {
    return tls.client_cert.empty()
               ? std::string("the server refused the TLS connection, probably because it requires a client "
                             "certificate: set client_ssl_cert (and client_ssl_cert_key) in .condarc")
               : fmt::format("the server refused the client certificate {}: check client_ssl_cert and "
                             "client_ssl_cert_key",
                             tls.client_cert);
  }
  return "check ssl_verify / REQUESTS_CA_BUNDLE, the client certificate settings and any TLS-intercepting proxy";
}

}  // namespace

void initialise_libcurl_once() {
  // curl_global_init is not safe to race with other threads using libcurl;
  // doing it once, before any handle exists, is what libcurl asks for.
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw std::runtime_error("libcurl failed to initialise (curl_global_init)");
    }
  });
}

void configure_transfer(void* curl_easy, const ClientSettings& settings, const std::string& url) {
  CURL* easy = curl_easy;
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(easy, CURLOPT_MAXREDIRS, max_redirects);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_UNRESTRICTED_AUTH, 0L);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, settings.user_agent.c_str());
  const long stall_seconds = std::max<long>(1, static_cast<long>(settings.stall_timeout.count()));
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT, stall_seconds);
  // Fewer than 1 byte/s for stall_seconds: stalled.
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, stall_seconds);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  if (settings.share) curl_easy_setopt(easy, CURLOPT_SHARE, settings.share->handle());

  const TlsSettings& tls = settings.tls;
  if (!tls.verify) {
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!tls.ca_bundle.empty()) {
    std::error_code error;
    const bool directory = std::filesystem::is_directory(tls.ca_bundle, error);
    curl_easy_setopt(easy, directory ? CURLOPT_CAPATH : CURLOPT_CAINFO, tls.ca_bundle.c_str());
    // A bundle replaces the system's store, as in requests (and conda).
    if (directory) curl_easy_setopt(easy, CURLOPT_CAINFO, nullptr);
  }
  if (!tls.client_cert.empty()) {
    curl_easy_setopt(easy, CURLOPT_SSLCERT, tls.client_cert.c_str());
    // A PEM holding both certificate and key is conda's single-file form.
    curl_easy_setopt(easy, CURLOPT_SSLKEY, (tls.client_key.empty() ? tls.client_cert : tls.client_key).c_str());
  }
  // proxy_servers wins over the *_proxy variables (as in conda, which hands
  // it to requests explicitly); without an entry libcurl reads those itself.
  const auto proxy = settings.proxy_for(url);
  if (!proxy.empty()) {
    curl_easy_setopt(easy, CURLOPT_PROXY, proxy.c_str());
    // requests uses an explicit proxy whatever no_proxy says; "" stops
    // libcurl from reading no_proxy for this transfer.
    curl_easy_setopt(easy, CURLOPT_NOPROXY, "");
  }
}

TransportFailure classify_failure(int curl_code, std::string_view error_text, bool receiver_refused) {
  switch (static_cast<CURLcode>(curl_code)) {
    case CURLE_OK:
      return TransportFailure::none;
    case CURLE_OPERATION_TIMEDOUT:
      return TransportFailure::timed_out;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
      // A TLS alert (a refused client certificate) will not change by asking again.
      return mentions(error_text, "SSL") && client_certificate_refused(error_text) ? TransportFailure::tls
                                                                                   : TransportFailure::connection_lost;
    case CURLE_COULDNT_CONNECT:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return TransportFailure::connection_lost;
    case CURLE_PARTIAL_FILE:
      return TransportFailure::truncated;
    case CURLE_WRITE_ERROR:
      return receiver_refused ? TransportFailure::receiver_aborted : TransportFailure::other;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransportFailure::name_resolution;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
      return TransportFailure::tls;
    default:
      return TransportFailure::other;
  }
}

std::string describe_failure(int curl_code, std::string_view error_text, const ClientSettings& settings,
                             std::string_view url) {
  const auto code = static_cast<CURLcode>(curl_code);
  if (code == CURLE_TOO_MANY_REDIRECTS) {
    return fmt::format("the server redirected more than {} times (a redirect loop); check the URL, or tell "
                       "the channel's maintainers",
                       max_redirects);
  }
  if (code == CURLE_UNSUPPORTED_PROTOCOL) {
    return "the URL, or a redirect the server answered with, is not http:// or https://: gpuenv downloads "
           "over, and follows redirects only to http:// and https://";
  }
  // libcurl's words may quote the URL, which holds the channel's secrets.
  const std::string detail = specs::mask_credentials(error_text.empty() ? curl_easy_strerror(code) : error_text);
  if (classify_failure(curl_code, error_text, false) == TransportFailure::tls) {
    return fmt::format("{}; {}", detail, tls_advice(code, error_text, settings));
  }
  // Under TLS 1.3 a server checks the client's certificate after the
  // handshake and hangs up; the client then often sees only a broken pipe.
  const bool dropped = code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR;
  if (dropped && url.starts_with("https://") && settings.tls.client_cert.empty()) {
    return fmt::format("{} (if the server requires a client certificate, set client_ssl_cert and "
                       "client_ssl_cert_key in .condarc)",
                       detail);
  }
  return detail;
}

}  // namespace gpuenv::net
