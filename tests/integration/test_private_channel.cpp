// Private channels (issue 9): `-c http://host/t/<token>/chan` and
// `-c http://user:password@host/chan` install end to end, their secrets go
// to the channel's own server only, and nothing gpuenv prints or writes into
// the prefix or the package cache holds them.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_http_server.hpp"
#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::contains;
using gpuenv::testing::installed_dists;
using gpuenv::testing::InstallCliMachine;
using gpuenv::testing::read_file;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::TestHttpServer;
using Dists = std::vector<std::string>;

// The files under `root` whose content holds `secret`.
std::vector<std::string> files_holding(const fs::path& root, const std::string& secret) {
  std::vector<std::string> found;
  if (!fs::exists(root)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && !entry.is_symlink() && contains(read_file(entry.path()), secret)) {
      found.push_back(entry.path().string());
    }
  }
  return found;
}

void expect_secret_absent(const CommandOutput& result, const std::string& secret) {
  EXPECT_FALSE(contains(result.out, secret)) << result.out;
  EXPECT_FALSE(contains(result.err, secret)) << result.err;
}

// Creates an environment of `app` from `channel`, as text and as --json,
// then fails an install on a missing package file; none of it may show
// `secret`, in the output, the prefixes or the package cache.
void create_install_and_fail(InstallCliMachine& machine, const std::string& channel, const std::string& secret) {
  const auto create = [&](const fs::path& prefix, std::vector<std::string> extra) {
    std::vector<std::string> args = {"create", "-p", prefix.string(), "-c", channel, "--override-channels", "-y"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, machine.env());
  };
  const auto text = create(machine / "env", {"app"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(installed_dists(machine / "env"), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0"}));
  expect_secret_absent(text, secret);

  const auto json = create(machine / "env-json", {"--json", "tool"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(installed_dists(machine / "env-json"), (Dists{"tool-1.0-0"}));
  expect_secret_absent(json, secret);

  fs::remove(machine / "served/channel/linux-64/other-1.0-0.conda");
  const auto failed = run_gpuenv(
      {"install", "-p", (machine / "env").string(), "-c", channel, "--override-channels", "-y", "other"},
      machine.env());
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_TRUE(contains(failed.err, "other-1.0-0.conda")) << failed.err;
  expect_secret_absent(failed, secret);
  const auto failed_json = run_gpuenv({"install", "-p", (machine / "env").string(), "-c", channel,
                                       "--override-channels", "-y", "--json", "other"},
                                      machine.env());
  EXPECT_EQ(failed_json.exit_code, 1);
  expect_secret_absent(failed_json, secret);

  EXPECT_TRUE(contains(read_file(machine / "env/conda-meta/history"), "# cmd:"));
  EXPECT_EQ(files_holding(machine / "env", secret), std::vector<std::string>{});
  EXPECT_EQ(files_holding(machine / "env-json", secret), std::vector<std::string>{});
  EXPECT_EQ(files_holding(machine / "root/pkgs", secret), std::vector<std::string>{});
}

TEST(PrivateChannel, CreatesFromATokenChannelAndShowsTheTokenNowhere) {
  InstallCliMachine machine;
  TestHttpServer server(machine / "served");
  gpuenv::testing::write_test_channel(machine / "served/channel", server.url("/channel"));
  const std::string token = "tk-0123-secret";
  server.require_token(token);
  const auto channel = server.url("/t/" + token + "/channel");
  create_install_and_fail(machine, channel, token);
  // The packages were fetched with the token (the server serves nothing without it).
  EXPECT_EQ(server.requests_for("/t/" + token + "/channel/linux-64/app-1.0-h1_0.conda").size(), 1u);
  EXPECT_TRUE(contains(read_file(machine / "env/conda-meta/history"), "/t/<TOKEN>/channel"))
      << read_file(machine / "env/conda-meta/history");
}

TEST(PrivateChannel, CreatesFromAPasswordChannelAndShowsThePasswordNowhere) {
  InstallCliMachine machine;
  TestHttpServer server(machine / "served");
  gpuenv::testing::write_test_channel(machine / "served/channel", server.url("/channel"));
  const std::string password = "pa55-secret-word";
  server.require_basic_auth("someone:" + password);
  const auto channel = "http://someone:" + password + "@127.0.0.1:" + std::to_string(server.port()) + "/channel";
  create_install_and_fail(machine, channel, password);
  for (const auto& request : server.requests()) {
    EXPECT_EQ(request.authorization, "Basic c29tZW9uZTpwYTU1LXNlY3JldC13b3Jk") << request.path;
  }
}

TEST(PrivateChannel, ARedirectToAnotherHostGetsNoCredentials) {
  InstallCliMachine machine;
  TestHttpServer server(machine / "served");
  TestHttpServer mirror(machine / "served");  // another port: another origin
  gpuenv::testing::write_test_channel(machine / "served/channel", server.url("/channel"));
  server.require_basic_auth("someone:secret");
  server.redirect("/channel/linux-64/tool-1.0-0.conda", mirror.url("/channel/linux-64/tool-1.0-0.conda"));
  const auto channel = "http://someone:secret@127.0.0.1:" + std::to_string(server.port()) + "/channel";
  const auto result = run_gpuenv(
      {"create", "-p", (machine / "env").string(), "-c", channel, "--override-channels", "-y", "tool"}, machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto served = mirror.requests();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_EQ(served[0].path, "/channel/linux-64/tool-1.0-0.conda");
  EXPECT_EQ(served[0].authorization, "");
}

}  // namespace
