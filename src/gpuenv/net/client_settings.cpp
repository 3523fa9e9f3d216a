#include "gpuenv/net/client_settings.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <tuple>

namespace gpuenv::net {
namespace {

std::string non_empty(const util::EnvLookup& env, std::string_view name) {
  auto value = env(name);
  return value ? *value : std::string();
}

std::string origin_or(const util::CondaConfig& config, std::string_view setting) {
  const auto origin = config.origin_of(setting);
  return origin.empty() ? std::string(setting) : fmt::format("{} ({})", setting, origin);
}

// A file or directory a setting names must exist: a typo there would
// otherwise surface as a baffling TLS failure on the first transfer.
std::expected<void, std::string> must_exist(const std::string& path, const std::string& named_by,
                                            std::string_view what_to_do) {
  std::error_code error;
  if (std::filesystem::exists(path, error)) return {};
  return std::unexpected(fmt::format("{} names '{}', which does not exist: {}", named_by, path, what_to_do));
}

// scheme and host of a URL, lower-cased, without user info and port.
std::pair<std::string, std::string> scheme_and_host(std::string_view url) {
  const auto colon = url.find("://");
  if (colon == std::string_view::npos) return {};
  std::string scheme(url.substr(0, colon));
  std::string_view rest = url.substr(colon + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  if (!rest.starts_with('[')) rest = rest.substr(0, rest.find(':'));
  std::string host(rest);
  for (auto* text : {&scheme, &host}) {
    for (auto& c : *text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return {scheme, host};
}

}  // namespace

std::string ClientSettings::proxy_for(std::string_view url) const {
  if (proxy_servers.empty()) return {};
  const auto [scheme, host] = scheme_and_host(url);
  for (const auto& key : {scheme + "://" + host, scheme, "all://" + host, std::string("all")}) {
    if (const auto found = proxy_servers.find(key); found != proxy_servers.end()) return found->second;
  }
  return {};
}

std::string default_user_agent() { return "gpuenv/" GPUENV_VERSION; }

std::expected<ClientSettingsResult, std::string> client_settings_from(const util::CondaConfig& config,
                                                                      const util::EnvLookup& env) {
  ClientSettingsResult result;
  ClientSettings& settings = result.settings;
  settings.user_agent = default_user_agent();
  TlsSettings& tls = settings.tls;

  // conda hands ssl_verify to requests, which then lets REQUESTS_CA_BUNDLE
  // (or CURL_CA_BUNDLE) replace a true or a path. ssl_verify: false stays
  // off here (docs/spec-deviations.md): requests' quirk of turning it back on
  // would surprise anyone who wrote false.
  if (!config.ssl_verify) {
    tls.verify = false;
    tls.origin = origin_or(config, "ssl_verify");
    result.warnings.push_back(fmt::format(
        "{} is false: HTTPS certificates are not verified, so anyone on the network path can read and alter "
        "what is downloaded; trust the server's CA with ssl_verify: <ca-bundle.pem> or REQUESTS_CA_BUNDLE instead",
        tls.origin));
  } else if (const auto requests_bundle = non_empty(env, "REQUESTS_CA_BUNDLE"); !requests_bundle.empty()) {
    tls.ca_bundle = requests_bundle;
    tls.origin = "$REQUESTS_CA_BUNDLE";
  } else if (const auto curl_bundle = non_empty(env, "CURL_CA_BUNDLE"); !curl_bundle.empty()) {
    tls.ca_bundle = curl_bundle;
    tls.origin = "$CURL_CA_BUNDLE";
  } else if (!config.ssl_ca_path.empty()) {
    tls.ca_bundle = config.ssl_ca_path;
    tls.origin = origin_or(config, "ssl_verify");
  } else if (const auto cert_file = non_empty(env, "SSL_CERT_FILE"); !cert_file.empty()) {
    // Where OpenSSL (and conda's truststore) look for the system's store.
    tls.ca_bundle = cert_file;
    tls.origin = "$SSL_CERT_FILE";
  } else if (const auto cert_dir = non_empty(env, "SSL_CERT_DIR"); !cert_dir.empty()) {
    tls.ca_bundle = cert_dir;
    tls.origin = "$SSL_CERT_DIR";
  }
  if (!tls.ca_bundle.empty()) {
    if (auto ok = must_exist(tls.ca_bundle, tls.origin, "point it at a CA bundle file (PEM) or a certificate directory");
        !ok) {
      return std::unexpected(ok.error());
    }
  }

  tls.client_cert = config.client_ssl_cert;
  tls.client_key = config.client_ssl_cert_key;
  for (const auto& [path, setting, what] :
       {std::tuple{tls.client_cert, "client_ssl_cert", "the client certificate"},
        std::tuple{tls.client_key, "client_ssl_cert_key", "the client certificate's key"}}) {
    if (path.empty()) continue;
    if (auto ok = must_exist(path, origin_or(config, setting), fmt::format("point it at the PEM file of {}", what));
        !ok) {
      return std::unexpected(ok.error());
    }
  }

  for (const auto& [key, proxy] : config.proxy_servers) settings.proxy_servers.emplace(key, proxy);
  settings.share = std::make_shared<ConnectionShare>();
  return result;
}

}  // namespace gpuenv::net
