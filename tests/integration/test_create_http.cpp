// `gpuenv create --dry-run` from a channel served over HTTP (the test
// server of tests/support): repodata comes through the fetcher and its
// cache, package URLs point at the server, a second run uses the caches.
#include <gtest/gtest.h>

#include <filesystem>

#include "solve_cli_fixture.hpp"
#include "support/test_http_server.hpp"

namespace {

using gpuenv::testing::linked;
using gpuenv::testing::parse_json;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::SolveCliMachine;

TEST(CreateOverHttp, SolvesFromAServedChannelAndReusesTheCaches) {
  SolveCliMachine machine;
  std::filesystem::create_directories(machine / "served/recipes/noarch");
  std::filesystem::copy_file(gpuenv::testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json",
                             machine / "served/recipes/noarch/repodata.json");
  gpuenv::testing::TestHttpServer server(machine / "served");
  const std::string channel = server.url("/recipes");
  const std::vector<std::string> args = {"create", "-p", (machine / "env").string(), "-c", channel,
                                         "--override-channels", "--dry-run", "--json", "another_dependent"};
  const auto cold = run_gpuenv(args, machine.env());
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  const auto document = parse_json(cold);
  EXPECT_EQ(linked(document),
            (std::vector<std::string>{"dependency 2.0 0", "dependent 2.0 0", "another_dependent 2.0 0"}));
  EXPECT_EQ(document["actions"]["LINK"][0]["url"], channel + "/noarch/dependency-2.0-0.conda");
  EXPECT_EQ(document["actions"]["LINK"][0]["channel"], channel);
  EXPECT_FALSE(std::filesystem::is_empty(machine / "cache/repodata"));
  EXPECT_FALSE(std::filesystem::is_empty(machine / "cache/solv"));

  const auto warm = run_gpuenv(args, machine.env());
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_EQ(cold.out, warm.out);
}

TEST(CreateOverHttp, AChannelWithoutNoarchIsNotAChannel) {
  SolveCliMachine machine;
  std::filesystem::create_directories(machine / "served/empty");
  gpuenv::testing::TestHttpServer server(machine / "served");
  const auto result = run_gpuenv({"create", "-p", (machine / "env").string(), "-c", server.url("/empty"),
                                  "--override-channels", "--dry-run", "anything"},
                                 machine.env());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("has no noarch/repodata.json"), std::string::npos) << result.err;
}

}  // namespace
