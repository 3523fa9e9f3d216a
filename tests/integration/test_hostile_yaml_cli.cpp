// Hostile YAML files given to the gpuenv binary (issue 9): an alias bomb in
// a .condarc of the search path ($CONDARC) or in an environment.yml
// (`create --file`) is refused with a message naming the file, creates
// nothing, and stays within memory. gpuenv runs under `ulimit -v`, so that a
// regression fails the test instead of exhausting the machine.
#include <gtest/gtest.h>

#include "config_cli_fixture.hpp"
#include "support/hostile_yaml.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::billion_laughs;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::ConfigCliMachine;
using gpuenv::testing::run_gpuenv_bounded;
using gpuenv::testing::write_text_file;

// 2 GiB of address space: gpuenv needs far less; the bomb, unbounded, grew
// past 24 GB.
constexpr std::size_t kAddressSpaceKib = std::size_t{2} << 20;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// 4,000 aliases of a 256 KiB package name: a gigabyte of text once copied.
std::string long_string_aliases(const std::string& key) {
  std::string text = "s: &s " + std::string(256 << 10, 'x') + "\n" + key + ": [*s";
  for (int i = 0; i < 4000; ++i) text += ", *s";
  return text + "]\n";
}

class HostileYamlCli : public ::testing::Test {
 protected:
  CommandOutput create_with_condarc(const std::string& text) {
    const auto condarc = machine / "custom-condarc.yml";
    write_text_file(condarc, text);
    return run_gpuenv_bounded({"create", "-p", prefix().string(), "--dry-run", "foo"},
                              machine.env({"CONDARC=" + condarc.string()}), kAddressSpaceKib);
  }
  CommandOutput create_from_file(const std::string& text) {
    write_text_file(environment_file(), text);
    return run_gpuenv_bounded({"create", "-y", "--file", environment_file().string(), "-c", machine.channel_a().string()},
                              machine.env(), kAddressSpaceKib);
  }
  fs::path prefix() const { return machine / "env"; }
  fs::path environment_file() const { return machine / "environment.yml"; }

  ConfigCliMachine machine;
};

TEST_F(HostileYamlCli, ABillionLaughsCondarcIsRefusedNamingTheFile) {
  const auto result = create_with_condarc(billion_laughs("channels"));
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(contains(result.err, (machine / "custom-condarc.yml").string() + ": holds more than 1000000 values"))
      << result.err;
}

TEST_F(HostileYamlCli, AnAliasCycleInACondarcIsRefused) {
  const auto result = create_with_condarc("channels: &loop [conda-forge, *loop]\n");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(contains(result.err, (machine / "custom-condarc.yml").string() + ":1: values nest more than"))
      << result.err;
}

TEST_F(HostileYamlCli, ABillionLaughsEnvironmentYamlIsRefusedAndCreatesNothing) {
  const auto result = create_from_file("name: bomb\n" + billion_laughs("dependencies"));
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(contains(result.err, environment_file().string() + ": holds more than 1000000 values")) << result.err;
  EXPECT_FALSE(fs::exists(machine / "root/envs/bomb"));
}

TEST_F(HostileYamlCli, AliasesOfALongNameInAnEnvironmentYamlAreRefused) {
  const auto result = create_from_file("name: bomb\n" + long_string_aliases("dependencies"));
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(contains(result.err, environment_file().string() + ": holds more than 16 MiB of text")) << result.err;
  EXPECT_FALSE(fs::exists(machine / "root/envs/bomb"));
}

TEST_F(HostileYamlCli, AnOversizedEnvironmentYamlIsRefused) {
  const auto result = create_from_file("name: big\ndependencies: [foo]\n" + std::string(3 << 20, '#') + "\n");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(contains(result.err, environment_file().string() + " is larger than the 2 MiB")) << result.err;
}

}  // namespace
