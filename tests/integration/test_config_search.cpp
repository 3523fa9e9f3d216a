// `gpuenv search` with conda's configuration: the configured channels and
// platform, and no pins (conda search lists what the channels hold).
#include <gtest/gtest.h>

#include "config_cli_fixture.hpp"

namespace {

using gpuenv::testing::ConfigCliMachine;
using gpuenv::testing::parse_json;
using Strings = std::vector<std::string>;

Strings versions_of(const nlohmann::json& document, const std::string& name) {
  Strings versions;
  for (const auto& record : document[name]) versions.push_back(record["version"].get<std::string>());
  return versions;
}

TEST(ConfigSearch, SearchesTheCondarcChannelsAndIgnoresPins) {
  ConfigCliMachine machine;
  machine.write_condarc("channels:\n  - " + machine.channel_a().string() + "\n  - " + machine.channel_b().string() +
                        "\npinned_packages: [foo 1.5]\n");
  const auto result = machine.search({"foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(versions_of(parse_json(result), "foo"), (Strings{"1.0", "1.5", "2.0"}));
}

TEST(ConfigSearch, PlatformAndCondaSubdirPickTheSubdir) {
  ConfigCliMachine machine;
  machine.write_condarc("channels: [" + machine.channel_b().string() + "]\n");
  EXPECT_EQ(machine.search({"armpkg"}).exit_code, 1);

  auto result = machine.search({"--platform", "linux-aarch64", "armpkg"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto document = parse_json(result);
  EXPECT_EQ(versions_of(document, "armpkg"), Strings{"1.0"});
  EXPECT_EQ(document["armpkg"][0]["subdir"], "linux-aarch64");

  result = machine.search({"macpkg"}, {"CONDA_SUBDIR=osx-arm64"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(versions_of(parse_json(result), "macpkg"), Strings{"1.0"});
}

TEST(ConfigSearch, OfflineFromTheCondarcKeepsOffTheNetwork) {
  ConfigCliMachine machine;
  // Nothing listens on port 9 of 127.0.0.1; offline, nothing is even tried.
  machine.write_condarc("channels: [http://127.0.0.1:9/never-fetched]\noffline: true\n");
  const auto result = machine.search({"foo"});
  EXPECT_EQ(result.exit_code, 1);
  const auto error = parse_json(result)["error"].get<std::string>();
  EXPECT_NE(error.find("offline"), std::string::npos) << error;
  EXPECT_NE(error.find("never been downloaded"), std::string::npos) << error;
}

TEST(ConfigSearch, AMalformedCondarcIsAJsonError) {
  ConfigCliMachine machine;
  machine.write_condarc("channels: [a\n");
  const auto result = machine.search({"foo"});
  EXPECT_EQ(result.exit_code, 1);
  const auto document = parse_json(result);
  EXPECT_EQ(document["success"], false);
  EXPECT_NE(document["error"].get<std::string>().find(machine.condarc().string() + ":"), std::string::npos)
      << document.dump(2);
}

}  // namespace
