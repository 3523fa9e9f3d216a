// net::client_settings_from: conda's precedence between ssl_verify and the
// CA variables, the checks on the files named, and proxy_servers lookup.
#include <gtest/gtest.h>

#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/net/file_url.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::testing {
namespace {

std::expected<net::ClientSettingsResult, std::string> from(const util::CondaConfig& config,
                                                           std::map<std::string, std::string, std::less<>> env = {}) {
  return net::client_settings_from(config, util::fixed_environment(std::move(env)));
}

class ClientSettings : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text_file(scratch_ / "condarc-ca.pem", "x");
    write_text_file(scratch_ / "env-ca.pem", "x");
  }
  TempDirectory scratch_;
};

TEST_F(ClientSettings, DefaultsToTheSystemStoreAndTheGpuenvUserAgent) {
  const auto result = from({});
  ASSERT_TRUE(result) << result.error();
  EXPECT_TRUE(result->settings.tls.verify);
  EXPECT_EQ(result->settings.tls.ca_bundle, "");
  EXPECT_TRUE(result->settings.user_agent.starts_with("gpuenv/")) << result->settings.user_agent;
  EXPECT_TRUE(result->warnings.empty());
}

// As in conda (requests' merge_environment_settings): REQUESTS_CA_BUNDLE,
// then CURL_CA_BUNDLE, win over a bundle ssl_verify names.
TEST_F(ClientSettings, RequestsCaBundleWinsOverTheSslVerifyPath) {
  util::CondaConfig config;
  config.ssl_ca_path = (scratch_ / "condarc-ca.pem").string();
  const auto plain = from(config);
  ASSERT_TRUE(plain) << plain.error();
  EXPECT_EQ(plain->settings.tls.ca_bundle, config.ssl_ca_path);
  const auto overridden = from(config, {{"REQUESTS_CA_BUNDLE", (scratch_ / "env-ca.pem").string()},
                                        {"CURL_CA_BUNDLE", "/nonexistent"}});
  ASSERT_TRUE(overridden) << overridden.error();
  EXPECT_EQ(overridden->settings.tls.ca_bundle, (scratch_ / "env-ca.pem").string());
  EXPECT_EQ(overridden->settings.tls.origin, "$REQUESTS_CA_BUNDLE");
}

TEST_F(ClientSettings, SslCertFileIsTheSystemStoresPlaceAndLosesToSslVerify) {
  util::CondaConfig config;
  const auto env_only = from(config, {{"SSL_CERT_FILE", (scratch_ / "env-ca.pem").string()}});
  ASSERT_TRUE(env_only) << env_only.error();
  EXPECT_EQ(env_only->settings.tls.ca_bundle, (scratch_ / "env-ca.pem").string());
  config.ssl_ca_path = (scratch_ / "condarc-ca.pem").string();
  const auto both = from(config, {{"SSL_CERT_FILE", (scratch_ / "env-ca.pem").string()}});
  ASSERT_TRUE(both) << both.error();
  EXPECT_EQ(both->settings.tls.ca_bundle, config.ssl_ca_path);
}

// A deliberate deviation (docs/spec-deviations.md): requests lets
// REQUESTS_CA_BUNDLE turn verification back on; false stays false here.
TEST_F(ClientSettings, SslVerifyFalseStaysOffAndWarnsOnce) {
  util::CondaConfig config;
  config.ssl_verify = false;
  const auto result = from(config, {{"REQUESTS_CA_BUNDLE", (scratch_ / "env-ca.pem").string()}});
  ASSERT_TRUE(result) << result.error();
  EXPECT_FALSE(result->settings.tls.verify);
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_NE(result->warnings[0].find("ssl_verify is false"), std::string::npos) << result->warnings[0];
}

TEST_F(ClientSettings, AMissingFileIsAnErrorNamingTheSettingThatNamedIt) {
  const auto bundle = from({}, {{"REQUESTS_CA_BUNDLE", (scratch_ / "missing.pem").string()}});
  ASSERT_FALSE(bundle);
  EXPECT_NE(bundle.error().find("$REQUESTS_CA_BUNDLE names"), std::string::npos) << bundle.error();
  util::CondaConfig config;
  config.client_ssl_cert = (scratch_ / "missing-client.pem").string();
  const auto client = from(config);
  ASSERT_FALSE(client);
  EXPECT_NE(client.error().find("client_ssl_cert names"), std::string::npos) << client.error();
}

// requests' select_proxy order: scheme://host, scheme, all://host, all.
TEST_F(ClientSettings, ProxyServersArePickedAsCondaPicksThem) {
  net::ClientSettings settings;
  settings.proxy_servers = {{"http", "http://p-http"},
                            {"https://repo.example.com", "http://p-repo"},
                            {"all://other.example.com", "http://p-other"},
                            {"all", "http://p-all"}};
  EXPECT_EQ(settings.proxy_for("https://repo.example.com/c/noarch/x"), "http://p-repo");
  EXPECT_EQ(settings.proxy_for("https://user:pw@REPO.example.com:443/c"), "http://p-repo");
  EXPECT_EQ(settings.proxy_for("http://repo.example.com/c"), "http://p-http");
  EXPECT_EQ(settings.proxy_for("https://other.example.com/c"), "http://p-other");
  EXPECT_EQ(settings.proxy_for("https://third.example.com/c"), "http://p-all");
  EXPECT_EQ(net::ClientSettings{}.proxy_for("https://repo.example.com/c"), "");
}

TEST(FileUrl, LocalhostIsLocalAndOtherHostsAreRefused) {
  EXPECT_EQ(net::path_from_file_url("file:///srv/my%20chan/x").value(), "/srv/my chan/x");
  EXPECT_EQ(net::path_from_file_url("file://localhost/srv/x").value(), "/srv/x");
  EXPECT_EQ(net::path_from_file_url("FILE://127.0.0.1/srv/x").value(), "/srv/x");
  const auto remote = net::path_from_file_url("file://fileserver/srv/x");
  ASSERT_FALSE(remote);
  EXPECT_NE(remote.error().find("names the host 'fileserver'"), std::string::npos) << remote.error();
  EXPECT_FALSE(net::path_from_file_url("https://example.com/x"));
  EXPECT_EQ(net::file_url_from_path("/srv/my chan"), "file:///srv/my%20chan");
}

}  // namespace
}  // namespace gpuenv::testing
