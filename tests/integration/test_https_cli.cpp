// gpuenv against a channel served over HTTPS by the test server, with a CA
// and certificates the test makes: `create --dry-run` (the repodata fetch)
// and `create` (the package downloads) trust it only as configured
// (ssl_verify in .condarc, REQUESTS_CA_BUNDLE), ssl_verify: false works with
// one warning, a client certificate is sent when configured, and a
// private channel's token appears in no message of a failure.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_certificates.hpp"
#include "support/test_http_server.hpp"
#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::contains;
using gpuenv::testing::installed_dists;
using gpuenv::testing::InstallCliMachine;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::TestHttpServer;
using Dists = std::vector<std::string>;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

class Https : public ::testing::Test {
 protected:
  void SetUp() override { certificates_ = gpuenv::testing::make_test_certificates(machine_ / "pki"); }

  // Serves the test channel (its package URLs on this server) over HTTPS.
  std::unique_ptr<TestHttpServer> serve(bool require_client_certificate = false) {
    auto server = std::make_unique<TestHttpServer>(machine_ / "served",
                                                   certificates_.server(require_client_certificate));
    gpuenv::testing::write_test_channel(machine_ / "served/channel", server->url("/channel"));
    return server;
  }
  void write_condarc(const std::string& text) { gpuenv::testing::write_text_file(machine_ / "home/.condarc", text); }
  std::string trust_ca() const { return "ssl_verify: " + certificates_.ca.string() + "\n"; }

  CommandOutput dry_run(const std::string& channel, std::vector<std::string> extra_env = {},
                        std::vector<std::string> extra_args = {}) {
    std::vector<std::string> args = {"create", "-p", (machine_ / "env").string(), "-c", channel,
                                     "--override-channels", "--dry-run", "app"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    return run_gpuenv(args, machine_.env(std::move(extra_env)));
  }

  InstallCliMachine machine_;
  gpuenv::testing::TestCertificates certificates_;
};

TEST_F(Https, AnUntrustedServerIsRefusedNamingTheSettingsToChange) {
  const auto server = serve();
  const auto result = dry_run(server->url("/channel"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "not trusted")) << result.err;
  EXPECT_TRUE(contains(result.err, "ssl_verify")) << result.err;
  EXPECT_TRUE(contains(result.err, "REQUESTS_CA_BUNDLE")) << result.err;
}

TEST_F(Https, TheServerIsTrustedThroughSslVerifyOrRequestsCaBundle) {
  const auto server = serve();
  write_condarc(trust_ca());
  const auto condarc = dry_run(server->url("/channel"));
  EXPECT_EQ(condarc.exit_code, 0) << condarc.err;
  EXPECT_TRUE(contains(condarc.out, "app")) << condarc.out;

  write_condarc("channels: []\n");
  fs::remove_all(machine_ / "cache");
  const auto variable = dry_run(server->url("/channel"), {"REQUESTS_CA_BUNDLE=" + certificates_.ca.string()});
  EXPECT_EQ(variable.exit_code, 0) << variable.err;
}

TEST_F(Https, SslVerifyFalseWorksAndWarnsOnce) {
  const auto server = serve();
  write_condarc("ssl_verify: false\n");
  const auto result = run_gpuenv({"create", "-p", (machine_ / "env").string(), "-c", server->url("/channel"),
                                  "--override-channels", "-y", "app"},
                                 machine_.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(installed_dists(machine_ / "env"), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0"}));
  EXPECT_EQ(count_of(result.err, "HTTPS certificates are not verified"), 1u) << result.err;
}

TEST_F(Https, PackagesAreDownloadedOverHttpsFromATrustedServer) {
  const auto server = serve();
  write_condarc(trust_ca());
  const auto result = run_gpuenv({"create", "-p", (machine_ / "env").string(), "-c", server->url("/channel"),
                                  "--override-channels", "-y", "app"},
                                 machine_.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(installed_dists(machine_ / "env"), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0"}));
  EXPECT_EQ(server->requests_for("/channel/linux-64/app-1.0-h1_0.conda").size(), 1u);
}

TEST_F(Https, AClientCertificateIsSentWhenConfigured) {
  const auto server = serve(/*require_client_certificate=*/true);
  write_condarc(trust_ca());
  const auto without = dry_run(server->url("/channel"));
  EXPECT_EQ(without.exit_code, 1);
  EXPECT_TRUE(contains(without.err, "client_ssl_cert")) << without.err;

  write_condarc(trust_ca() + "client_ssl_cert: " + certificates_.client_certificate.string() +
                "\nclient_ssl_cert_key: " + certificates_.client_key.string() + "\n");
  const auto with = run_gpuenv({"create", "-p", (machine_ / "env").string(), "-c", server->url("/channel"),
                                "--override-channels", "-y", "app"},
                               machine_.env());
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(installed_dists(machine_ / "env"), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0"}));
}

// A tokenized channel failing in each way gpuenv can see: the token is in
// no message, plain or --json.
TEST_F(Https, ATokenIsInNoMessageOfAFailedRepodataFetch) {
  const auto server = serve();
  const std::string token = "tk-9876-secret";
  const auto expect_hidden = [&](const std::string& channel, const std::string& why) {
    for (const auto& json : {std::vector<std::string>{}, std::vector<std::string>{"--json"}}) {
      const auto result = dry_run(channel, {}, json);
      EXPECT_EQ(result.exit_code, 1) << why;
      EXPECT_FALSE(contains(result.out + result.err, token)) << why << ": " << result.out << result.err;
      EXPECT_TRUE(contains(result.out + result.err, "<TOKEN>")) << why << ": " << result.out << result.err;
    }
  };
  expect_hidden(server->url("/t/" + token + "/channel"), "TLS failure");
  write_condarc(trust_ca());
  expect_hidden(server->url("/t/" + token + "/missing"), "404");
  expect_hidden("https://127.0.0.1:1/t/" + token + "/channel", "connection refused");
  server->redirect("*", "/t/" + token + "/loop/noarch/repodata.json.zst");
  expect_hidden(server->url("/t/" + token + "/loop"), "redirect loop");
}

TEST_F(Https, ATokenIsInNoMessageOfAFailedPackageDownload) {
  const auto server = serve();
  const std::string token = "tk-5555-secret";
  server->require_token(token);
  write_condarc(trust_ca());
  const std::string package = "/channel/linux-64/app-1.0-h1_0.conda";
  const auto expect_hidden = [&](const std::string& why, const std::string& expected_words) {
    for (const auto& json : {std::vector<std::string>{}, std::vector<std::string>{"--json"}}) {
      std::vector<std::string> args = {"create", "-p", (machine_ / "env").string(), "-c",
                                       server->url("/t/" + token + "/channel"), "--override-channels", "-y", "app"};
      args.insert(args.end(), json.begin(), json.end());
      const auto result = run_gpuenv(args, machine_.env());
      EXPECT_EQ(result.exit_code, 1) << why;
      EXPECT_TRUE(contains(result.out + result.err, expected_words)) << why << ": " << result.out << result.err;
      EXPECT_FALSE(contains(result.out + result.err, token)) << why << ": " << result.out << result.err;
    }
  };
  server->redirect(package, "/t/" + token + package);
  expect_hidden("redirect loop", "redirected more than 10 times");
  server->clear();
  server->require_token(token);
  server->fault(package, {{"kind", "drop"}, {"times", -1}});
  expect_hidden("dropped connection", "app-1.0-h1_0.conda");
  server->clear();
  server->require_token(token);
  server->fail_with_status(package, 404, -1);
  expect_hidden("404", "HTTP 404");
}

}  // namespace
