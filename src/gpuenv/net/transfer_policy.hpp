// What every gpuenv transfer shares, repodata and packages alike: libcurl's
// one-time initialisation, the protocol allow-list and redirect limit (a
// hostile or broken server must not keep a transfer going round a loop, nor
// send it to file:// or any scheme other than http and https, nor get a
// private channel's credentials sent on to another host), the stall timeout,
// the user agent, TLS and proxies (ClientSettings), and the words a failure
// is reported in.
#pragma once

#include <string>
#include <string_view>

#include "gpuenv/net/client_settings.hpp"

namespace gpuenv::net {

inline constexpr long max_redirects = 10;

// Why a transfer ended without a complete HTTP response.
enum class TransportFailure {
  none,
  timed_out,         // no bytes for the stall timeout, or connecting took as long
  connection_lost,   // refused, reset, or closed before a response arrived
  truncated,         // closed before the announced Content-Length arrived
  receiver_aborted,  // the body receiver refused the bytes (disk full, corrupt zstd, ...)
  name_resolution,   // the host (or proxy) name does not resolve
  tls,               // certificate or TLS handshake problem
  other,
};

// curl_global_init, once per process, before the first handle.
void initialise_libcurl_once();

// Sets up a libcurl easy handle (a CURL*, passed as void* so this header
// needs no curl.h) for a transfer of `url`: redirects (at most
// max_redirects, only to http:// and https://, credentials never sent on
// to another host), the stall timeout, the user agent, TLS verification,
// the client certificate and the proxy. `url` must outlive the transfer.
void configure_transfer(void* curl_easy, const ClientSettings& settings, const std::string& url);

// The class of a finished transfer's libcurl result code (a CURLcode).
// `error_text` is libcurl's error buffer: OpenSSL reports a refused client
// certificate (a TLS 1.3 alert after the handshake) as a receive error.
TransportFailure classify_failure(int curl_code, std::string_view error_text, bool receiver_refused);

// The failure of a transfer of `url` in words, credentials masked, with
// what to change: for TLS failures that names ssl_verify /
// REQUESTS_CA_BUNDLE or client_ssl_cert.
std::string describe_failure(int curl_code, std::string_view error_text, const ClientSettings& settings,
                             std::string_view url);

}  // namespace gpuenv::net
