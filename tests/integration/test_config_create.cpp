// conda's configuration end to end: `gpuenv create --dry-run` reading
// ~/.condarc and CONDA_* variables (channels, channel_alias, default and
// custom channels, channel_priority, pinned_packages, subdir), under the
// command-line options.
#include <gtest/gtest.h>

#include <algorithm>

#include "config_cli_fixture.hpp"

namespace {

using gpuenv::testing::ConfigCliMachine;
using gpuenv::testing::linked_from;
using gpuenv::testing::parse_json;
using Strings = std::vector<std::string>;

std::string url(const std::filesystem::path& path) { return "file://" + std::filesystem::weakly_canonical(path).string(); }

Strings sorted(Strings strings) {
  std::sort(strings.begin(), strings.end());
  return strings;
}

// The URL of the one package linked.
std::string linked_url(const nlohmann::json& document) {
  EXPECT_EQ(document["actions"]["LINK"].size(), 1u) << document.dump(2);
  return document["actions"]["LINK"][0]["url"].get<std::string>();
}

class ConfigCreate : public ::testing::Test {
 protected:
  std::string a() const { return machine.channel_a().string(); }
  std::string b() const { return machine.channel_b().string(); }
  ConfigCliMachine machine;
};

TEST_F(ConfigCreate, TheCondarcChannelsAreLoaded) {
  machine.write_condarc("channels:\n  - " + a() + "\n");
  const auto result = machine.create({"foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 1.0 " + url(machine.channel_a())});
}

TEST_F(ConfigCreate, CommandLineChannelsComeBeforeTheConfiguredOnes) {
  machine.write_condarc("channels: [" + a() + "]\n");
  const auto result = machine.create({"-c", b(), "foo", "only-in-a"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(sorted(linked_from(parse_json(result))),
            (Strings{"foo 2.0 " + url(machine.channel_b()), "only-in-a 1.0 " + url(machine.channel_a())}));
  // --override-channels leaves the configured channels out.
  const auto overridden = machine.create({"-c", b(), "--override-channels", "only-in-a"});
  EXPECT_EQ(overridden.exit_code, 1);
  // ... and without a -c, nothing would be left (conda refuses it too).
  const auto nothing_left = machine.create({"--override-channels", "foo"});
  EXPECT_EQ(nothing_left.exit_code, 1);
  EXPECT_NE(parse_json(nothing_left)["error"].get<std::string>().find("--override-channels needs at least one -c"),
            std::string::npos)
      << nothing_left.out;
}

TEST_F(ConfigCreate, ChannelPriorityFromTheCondarcDecidesBetweenChannels) {
  machine.write_condarc("channels: [" + a() + ", " + b() + "]\n");
  auto result = machine.create({"foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 1.0 " + url(machine.channel_a())});

  machine.write_condarc("channels: [" + a() + ", " + b() + "]\nchannel_priority: disabled\n");
  result = machine.create({"foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 2.0 " + url(machine.channel_b())});

  // The command line wins over the file.
  result = machine.create({"--strict-channel-priority", "foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 1.0 " + url(machine.channel_a())});
}

TEST_F(ConfigCreate, StrictChannelPriorityFromTheCondarcNeverFallsBack) {
  machine.write_channels(/*a_foo_is_broken=*/true);
  machine.write_condarc("channels: [" + a() + ", " + b() + "]\n");
  auto result = machine.create({"foo"});  // flexible: falls back to chan-b
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 2.0 " + url(machine.channel_b())});

  machine.write_condarc("channels: [" + a() + ", " + b() + "]\nchannel_priority: strict\n");
  result = machine.create({"foo"});
  EXPECT_EQ(result.exit_code, 1) << result.out;
  const auto error = parse_json(result)["error"].get<std::string>();
  EXPECT_NE(error.find("strict channel priority"), std::string::npos) << error;

  result = machine.create({"foo"}, {"CONDA_CHANNEL_PRIORITY=flexible"});
  EXPECT_EQ(result.exit_code, 0) << result.out;
}

TEST_F(ConfigCreate, PinnedPackagesConstrainTheSolve) {
  machine.write_condarc("channels: [" + b() + "]\npinned_packages:\n  - foo 1.5.*\n");
  auto result = machine.create({"foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 1.5 " + url(machine.channel_b())});

  // A request the pin rules out fails and names the pin.
  result = machine.create({"foo >=2"});
  EXPECT_EQ(result.exit_code, 1);
  const auto document = parse_json(result);
  EXPECT_NE(document.dump().find("foo 1.5.*"), std::string::npos) << document.dump(2);
}

TEST_F(ConfigCreate, PinsFromTheEnvironmentAreSplitOnAmpersands) {
  machine.write_condarc("channels: [" + b() + "]\n");
  const auto result = machine.create({"foo"}, {"CONDA_PINNED_PACKAGES=only-in-a 1.0&foo >=1,<2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // A pin installs nothing by itself: only-in-a stays out.
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 1.5 " + url(machine.channel_b())});
}

TEST_F(ConfigCreate, APinWithAGlobNameConstrainsEveryPackageItNames) {
  machine.write_condarc("channels: [" + b() + "]\npinned_packages: [\"fo* <2\"]\n");
  const auto result = machine.create({"foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 1.5 " + url(machine.channel_b())});
}

TEST_F(ConfigCreate, ABadPinNamesWhereItIsWritten) {
  machine.write_condarc("channels: [" + b() + "]\npinned_packages:\n  - foo >=>1\n");
  const auto result = machine.create({"foo"});
  EXPECT_EQ(result.exit_code, 1);
  const auto error = parse_json(result)["error"].get<std::string>();
  EXPECT_NE(error.find(machine.condarc().string() + ":3: the pin 'foo >=>1'"), std::string::npos) << error;
}

TEST_F(ConfigCreate, CondaChannelsComeBeforeTheCondarcChannels) {
  machine.write_condarc("channels: [" + a() + "]\n");
  const auto result = machine.create({"foo", "only-in-a"}, {"CONDA_CHANNELS=" + b()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // chan-b is preferred for foo; chan-a, merged in after it as conda does, still serves only-in-a.
  EXPECT_EQ(sorted(linked_from(parse_json(result))),
            (Strings{"foo 2.0 " + url(machine.channel_b()), "only-in-a 1.0 " + url(machine.channel_a())}));
}

TEST_F(ConfigCreate, ChannelNamesResolveThroughTheConfiguredAliasAndCustomChannels) {
  machine.write_condarc("channel_alias: " + url(machine / "") + "\nchannels: [chan-b]\n");
  auto result = machine.create({"foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // A channel under the alias goes by its name, as conda-forge does.
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 2.0 chan-b"});
  EXPECT_EQ(linked_url(parse_json(result)), url(machine.channel_b()) + "/linux-64/foo-2.0-0.tar.bz2");

  std::filesystem::create_directories(machine / "custom");
  std::filesystem::rename(machine.channel_a(), machine / "custom/chan-a");
  machine.write_condarc("custom_channels:\n  chan-a: " + url(machine / "custom") + "\nchannels: [chan-a]\n");
  result = machine.create({"foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 1.0 chan-a"});
  EXPECT_EQ(linked_url(parse_json(result)), url(machine / "custom/chan-a") + "/linux-64/foo-1.0-0.tar.bz2");
}

TEST_F(ConfigCreate, DefaultsStandsForTheConfiguredDefaultChannels) {
  machine.write_condarc("default_channels: [" + b() + "]\nchannels: [defaults]\n");
  const auto result = machine.create({"foo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"foo 2.0 " + url(machine.channel_b())});
}

TEST_F(ConfigCreate, AMalformedCondarcNamesTheFileAndTheLine) {
  machine.write_condarc("channels:\n  - " + a() + "\nchannel_priority: [strict\n");
  const auto result = machine.create({"foo"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE((result.out + result.err).find(machine.condarc().string() + ":"), std::string::npos)
      << result.out << result.err;
  EXPECT_NE((result.out + result.err).find("not valid YAML"), std::string::npos) << result.out << result.err;
}

// machine.create passes --json: the error must keep conda's JSON shape.
TEST_F(ConfigCreate, AMalformedCondarcIsAJsonErrorWithJson) {
  machine.write_condarc("channels: [" + a() + "\n");
  const auto result = machine.create({"foo"});
  EXPECT_NE(result.exit_code, 0);
  const auto document = nlohmann::json::parse(result.out, nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << "stdout is not JSON:\n" << result.out << "\nstderr:\n" << result.err;
  EXPECT_EQ(document["success"], false);
  EXPECT_NE(document["error"].get<std::string>().find(machine.condarc().string() + ":"), std::string::npos)
      << result.out;
}

TEST_F(ConfigCreate, AnUnknownChannelPriorityNamesTheSettingAndTheChoices) {
  machine.write_condarc("channels: [" + a() + "]\n\nchannel_priority: strictest\n");
  const auto result = machine.create({"foo"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE((result.out + result.err)
                .find(machine.condarc().string() + ":3: channel_priority 'strictest' is not one of strict, flexible, "
                                                   "disabled"),
            std::string::npos)
      << result.out << result.err;
}

// --platform: the other platform's subdir plus noarch, and virtual packages
// of a machine gpuenv cannot measure.
TEST_F(ConfigCreate, PlatformSolvesForAnotherSubdir) {
  machine.write_condarc("channels: [" + b() + "]\n");
  auto result = machine.create({"--platform", "linux-aarch64", "armpkg"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse_json(result);
  EXPECT_EQ(linked_from(document), Strings{"armpkg 1.0 " + url(machine.channel_b())});
  EXPECT_EQ(document["actions"]["LINK"][0]["subdir"], "linux-aarch64");

  // Not in this machine's subdir.
  EXPECT_EQ(machine.create({"armpkg"}).exit_code, 1);

  result = machine.create({"--subdir", "osx-arm64", "macpkg"}, {"CONDA_OVERRIDE_OSX=14.2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  result = machine.create({"--subdir", "osx-arm64", "macpkg"}, {"CONDA_OVERRIDE_OSX=10.15"});
  EXPECT_EQ(result.exit_code, 1) << result.out;
}

TEST_F(ConfigCreate, CondaSubdirChoosesThePlatformAndTheOptionWins) {
  machine.write_condarc("channels: [" + b() + "]\n");
  auto result = machine.create({"armpkg"}, {"CONDA_SUBDIR=linux-aarch64"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  result = machine.create({"--platform", "osx-arm64", "armpkg"}, {"CONDA_SUBDIR=linux-aarch64"});
  EXPECT_EQ(result.exit_code, 1) << result.out;

  machine.write_condarc("channels: [" + b() + "]\nsubdir: linux-aarch64\n");
  result = machine.create({"armpkg"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
}

TEST_F(ConfigCreate, AnUnknownPlatformListsTheKnownOnes) {
  machine.write_condarc("channels: [" + b() + "]\n");
  auto result = machine.create({"--platform", "linux64", "foo"});
  EXPECT_NE(result.exit_code, 0);
  auto error = parse_json(result)["error"].get<std::string>();
  EXPECT_NE(error.find("--platform 'linux64' is not a platform to solve for"), std::string::npos) << error;
  EXPECT_NE(error.find("linux-aarch64"), std::string::npos) << error;

  result = machine.create({"foo"}, {"CONDA_SUBDIR=noarch"});
  EXPECT_NE(result.exit_code, 0);
  error = parse_json(result)["error"].get<std::string>();
  EXPECT_NE(error.find("$CONDA_SUBDIR: subdir 'noarch' is not a platform to solve for"), std::string::npos) << error;
}

// This machine's driver says nothing about another platform's: there, __cuda
// comes only from CONDA_OVERRIDE_CUDA.
TEST_F(ConfigCreate, AnotherPlatformDoesNotInheritThisMachinesDriver) {
  machine.write_condarc("channels: [" + b() + "]\n");
  const std::vector<std::string> driver = {"GPUENV_LIBCUDA=" + std::string(FAKE_LIBCUDA_PATH),
                                           "FAKE_CUDA_DRIVER_VERSION=12060", "FAKE_CUDA_DEVICES=8.0:A100:42949672960"};
  auto result = machine.create({"--platform", "linux-aarch64", "gpupkg"}, driver);
  EXPECT_EQ(result.exit_code, 1) << result.out;
  const auto error = parse_json(result)["error"].get<std::string>();
  EXPECT_EQ(error.find("12.6"), std::string::npos) << error;

  auto with_override = driver;
  with_override.push_back("CONDA_OVERRIDE_CUDA=12.4");
  result = machine.create({"--platform", "linux-aarch64", "gpupkg"}, with_override);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked_from(parse_json(result)), Strings{"gpupkg 1.0 " + url(machine.channel_b())});
}

}  // namespace
