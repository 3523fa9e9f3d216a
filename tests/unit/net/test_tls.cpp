// TLS against a real local HTTPS server (tests/support/test_http_server.py
// with a CA and certificates the test makes): the settings come from a
// .condarc and the environment through net::client_settings_from, as the
// CLI builds them.
#include <gtest/gtest.h>

#include <optional>

#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/net/http_client.hpp"
#include "support/temp_directory.hpp"
#include "support/test_certificates.hpp"
#include "support/test_http_server.hpp"

namespace gpuenv::testing {
namespace {

class Tls : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text_file(scratch_ / "served/file.txt", "hello over TLS");
    certificates_ = make_test_certificates(scratch_ / "pki");
  }

  // The settings a .condarc holding `condarc` and these variables give.
  net::ClientSettingsResult settings(const std::string& condarc,
                                     std::map<std::string, std::string, std::less<>> variables = {}) {
    write_text_file(scratch_ / "condarc", condarc);
    variables.emplace("HOME", scratch_.path().string());
    const auto env = util::fixed_environment(std::move(variables));
    auto config = util::load_conda_config({scratch_ / "condarc"}, env);
    EXPECT_TRUE(config) << config.error();
    auto result = net::client_settings_from(*config, env);
    EXPECT_TRUE(result) << result.error();
    return *result;
  }

  net::HttpResponse get(const std::string& url, const net::ClientSettings& client) {
    net::HttpClient http({client, 4});
    std::optional<net::HttpResponse> response;
    http.submit(net::HttpRequest{url, {}, {}}, [&](net::HttpResponse r) { response = std::move(r); });
    http.run();
    return *response;
  }

  TempDirectory scratch_;
  TestCertificates certificates_;
};

TEST_F(Tls, AnUntrustedCertificateIsRefusedNamingTheSettingsToChange) {
  TestHttpServer server(scratch_ / "served", certificates_.server());
  const auto response = get(server.url("/file.txt"), settings("channels: []\n").settings);
  EXPECT_EQ(response.failure, net::TransportFailure::tls);
  EXPECT_NE(response.failure_detail.find("not trusted by the system's CA store"), std::string::npos)
      << response.failure_detail;
  EXPECT_NE(response.failure_detail.find("ssl_verify"), std::string::npos) << response.failure_detail;
  EXPECT_NE(response.failure_detail.find("REQUESTS_CA_BUNDLE"), std::string::npos) << response.failure_detail;
}

TEST_F(Tls, TheCaNamedBySslVerifyInACondarcIsTrusted) {
  TestHttpServer server(scratch_ / "served", certificates_.server());
  const auto configured = settings("ssl_verify: " + certificates_.ca.string() + "\n");
  EXPECT_TRUE(configured.warnings.empty());
  const auto response = get(server.url("/file.txt"), configured.settings);
  EXPECT_TRUE(response.completed()) << response.failure_detail;
  EXPECT_EQ(response.status, 200);
}

TEST_F(Tls, TheCaNamedByRequestsCaBundleIsTrusted) {
  TestHttpServer server(scratch_ / "served", certificates_.server());
  const auto configured = settings("channels: []\n", {{"REQUESTS_CA_BUNDLE", certificates_.ca.string()}});
  const auto response = get(server.url("/file.txt"), configured.settings);
  EXPECT_TRUE(response.completed()) << response.failure_detail;
  EXPECT_EQ(response.status, 200);
}

TEST_F(Tls, SslVerifyFalseConnectsAndWarns) {
  TestHttpServer server(scratch_ / "served", certificates_.server());
  const auto configured = settings("ssl_verify: false\n");
  ASSERT_EQ(configured.warnings.size(), 1u);
  EXPECT_NE(configured.warnings[0].find("HTTPS certificates are not verified"), std::string::npos)
      << configured.warnings[0];
  EXPECT_NE(configured.warnings[0].find("condarc:1"), std::string::npos) << configured.warnings[0];
  const auto response = get(server.url("/file.txt"), configured.settings);
  EXPECT_TRUE(response.completed()) << response.failure_detail;
  EXPECT_EQ(response.status, 200);
}

TEST_F(Tls, AClientCertificateIsSentWhenConfiguredAndItsAbsenceIsExplained) {
  TestHttpServer server(scratch_ / "served", certificates_.server(/*require_client_certificate=*/true));
  const std::string trust = "ssl_verify: " + certificates_.ca.string() + "\n";
  // Under TLS 1.3 the server checks the certificate after the handshake:
  // the client sees its alert, or (racing it) only a dropped connection.
  // Either way the message names the setting.
  const auto without = get(server.url("/file.txt"), settings(trust).settings);
  EXPECT_FALSE(without.completed());
  EXPECT_NE(without.failure_detail.find("client_ssl_cert"), std::string::npos) << without.failure_detail;

  const auto with = get(server.url("/file.txt"),
                        settings(trust + "client_ssl_cert: " + certificates_.client_certificate.string() +
                                 "\nclient_ssl_cert_key: " + certificates_.client_key.string() + "\n")
                            .settings);
  EXPECT_TRUE(with.completed()) << with.failure_detail;
  EXPECT_EQ(with.status, 200);
}

// proxy_servers sends the request to the proxy (the test server answers an
// absolute-URL request as a proxy would); without it the made-up host
// would not even resolve.
TEST_F(Tls, ProxyServersCarriesPlainHttpThroughTheProxy) {
  TestHttpServer proxy(scratch_ / "served");
  const std::string url = "http://channel.invalid/file.txt";
  const auto configured = settings("proxy_servers:\n  http: " + proxy.url("") + "\n");
  const auto response = get(url, configured.settings);
  EXPECT_TRUE(response.completed()) << response.failure_detail;
  EXPECT_EQ(response.status, 200);
  ASSERT_EQ(proxy.requests().size(), 1u);
  EXPECT_EQ(proxy.requests()[0].proxied_url, url);
}

}  // namespace
}  // namespace gpuenv::testing
