// How gpuenv talks to servers, repodata and packages alike: TLS
// verification, the client certificate, proxies, the stall timeout and the
// user agent. One value, built once from conda's configuration and the
// environment (client_settings_from), carried by the repodata fetch and
// package download options, and applied to every transfer by
// net::configure_transfer.
#pragma once

#include <chrono>
#include <expected>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/net/connection_share.hpp"
#include "gpuenv/util/conda_config.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::net {

struct TlsSettings {
  // false: certificates are not checked at all (ssl_verify: false).
  bool verify = true;
  // A CA bundle file or a hashed certificate directory to trust instead of
  // the system's store; empty: the system's store.
  std::string ca_bundle;
  // What chose ca_bundle ("ssl_verify in ~/.condarc:3", "$REQUESTS_CA_BUNDLE"),
  // or what chose verify = false: for messages.
  std::string origin;
  // client_ssl_cert (PEM; may hold the key too) and client_ssl_cert_key.
  std::string client_cert;
  std::string client_key;
};

struct ClientSettings {
  TlsSettings tls;
  // conda's proxy_servers: "http", "https", "all" or "<scheme>://<host>"
  // -> the proxy URL. These win over the *_proxy variables, which libcurl
  // reads itself for the URLs this map has no entry for.
  std::map<std::string, std::string, std::less<>> proxy_servers;
  // A transfer fails once no byte arrived for this long (connecting
  // included): a stall limit, so a big file on a slow link is fine while it
  // keeps moving.
  std::chrono::seconds stall_timeout{30};
  std::string user_agent = "gpuenv";
  // Host names and TLS sessions shared by every transfer made with copies
  // of this value (client_settings_from makes one); null: none shared.
  std::shared_ptr<ConnectionShare> share;

  // The proxy_servers entry for `url` as conda (requests' select_proxy)
  // picks it: scheme://host, then scheme, then all://host, then all.
  // Empty: none configured (the *_proxy variables may still apply).
  std::string proxy_for(std::string_view url) const;
};

struct ClientSettingsResult {
  ClientSettings settings;
  // For the user, once per command (the library prints nothing): conda's
  // InsecureRequestWarning when verification is off.
  std::vector<std::string> warnings;
};

// The settings conda would use: ssl_verify (true, false, truststore or a CA
// bundle path), REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE (which, as in conda,
// win over a bundle named by ssl_verify), SSL_CERT_FILE / SSL_CERT_DIR (the
// system store's location, as OpenSSL and truststore read them),
// client_ssl_cert / client_ssl_cert_key and proxy_servers. Fails when a file
// it names does not exist, with the setting that named it.
std::expected<ClientSettingsResult, std::string> client_settings_from(const util::CondaConfig& config,
                                                                      const util::EnvLookup& env);

// The user agent of every transfer: "gpuenv/<version>".
std::string default_user_agent();

}  // namespace gpuenv::net
