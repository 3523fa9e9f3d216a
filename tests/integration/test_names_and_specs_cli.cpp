// Environment names and package specs a user can mistype or an attacker can
// craft (issue 9): names are checked as conda checks them (no ' ', ':', '#',
// '/', plus control characters) by every command that takes -n; `base` and
// `root` cannot be created; an empty or blank spec, or one whose name is `*`,
// is an error. Refused commands leave nothing behind.
#include <gtest/gtest.h>

#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::contains;
using gpuenv::testing::installed_dists;
using gpuenv::testing::InstallCliMachine;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::write_text_file;
using Dists = std::vector<std::string>;

class NamesAndSpecsCli : public ::testing::Test {
 protected:
  CommandOutput gpuenv(std::vector<std::string> args) const { return run_gpuenv(args, machine.env()); }
  CommandOutput create(const std::vector<std::string>& where, const std::vector<std::string>& specs) const {
    std::vector<std::string> args = {"create", "-y", "-c", machine.channel(), "--override-channels"};
    args.insert(args.end(), where.begin(), where.end());
    args.insert(args.end(), specs.begin(), specs.end());
    return gpuenv(args);
  }
  // What the envs directory holds: a refused create adds nothing.
  std::vector<std::string> environments() const {
    std::vector<std::string> names;
    std::error_code ignored;
    if (!fs::is_directory(envs_dir(), ignored)) return names;
    for (const auto& entry : fs::directory_iterator(envs_dir())) names.push_back(entry.path().filename().string());
    return names;
  }
  fs::path envs_dir() const { return machine / "root/envs"; }

  InstallCliMachine machine;
};

TEST_F(NamesAndSpecsCli, CreateRefusesNamesCondaRefusesAndControlCharacters) {
  for (const std::string name : {"a b", "a:b", "a#b", "a\nb", "a\tb", "a\rb", "a\x7f" "b", "a/b", "a\\b", ".."}) {
    const auto result = create({"-n", name}, {"tool"});
    EXPECT_EQ(result.exit_code, 2) << "name [" << name << "]: " << result.err;
    EXPECT_TRUE(contains(result.err, "is not a valid environment name")) << result.err;
    EXPECT_EQ(environments(), std::vector<std::string>{}) << "name [" << name << "]";
  }
  // The name an environment.yml gives is checked the same way.
  const auto file = machine / "environment.yml";
  write_text_file(file, "name: 'a:b'\ndependencies: [tool]\n");
  const auto from_file = gpuenv({"create", "-y", "-c", machine.channel(), "--override-channels", "--file", file.string()});
  EXPECT_EQ(from_file.exit_code, 2) << from_file.err;
  EXPECT_TRUE(contains(from_file.err, "'a:b' is not a valid environment name")) << from_file.err;
  EXPECT_EQ(environments(), std::vector<std::string>{});
}

TEST_F(NamesAndSpecsCli, AnEmptyNameOrPrefixIsAnError) {
  // Not "no -n": that would fall back to the active environment.
  for (const std::string option : {"-n", "-p"}) {
    for (const std::string value : {"", "  "}) {
      const auto result = gpuenv({"install", option, value, "tool"});
      EXPECT_NE(result.exit_code, 0) << option << " [" << value << "]";
      EXPECT_TRUE(contains(result.err, "not an empty or blank value")) << result.err;
    }
  }
}

TEST_F(NamesAndSpecsCli, EveryCommandTakingANameChecksIt) {
  ASSERT_EQ(create({"-n", "good"}, {"tool"}).exit_code, 0);
  const std::vector<std::vector<std::string>> commands = {
      {"install", "-y", "-n", "a:b", "tool"}, {"update", "-y", "-n", "a:b", "tool"}, {"remove", "-y", "-n", "a:b", "tool"},
      {"list", "-n", "a:b"},                  {"run", "-n", "a:b", "--", "true"},     {"env", "export", "-n", "a:b"},
      {"shell", "activate", "-s", "bash", "a:b"}, {"run", "-n", "a b", "--", "true"}, {"list", "-n", "a#b"}};
  for (const auto& command : commands) {
    const auto result = gpuenv(command);
    EXPECT_NE(result.exit_code, 0) << command.front() << ": " << result.out;
    EXPECT_TRUE(contains(result.err, "is not a valid environment name")) << command.front() << ": " << result.err;
  }
  EXPECT_EQ(environments(), std::vector<std::string>{"good"});
}

TEST_F(NamesAndSpecsCli, RunAndCreateRefuseAPrefixWithAColon) {
  // PATH would hold "<dir>/a" and the relative "b/bin".
  const auto prefix = machine / "a:b";
  const auto created = create({"-p", prefix.string()}, {"tool"});
  EXPECT_EQ(created.exit_code, 2) << created.err;
  EXPECT_TRUE(contains(created.err, "an environment path cannot contain ':'")) << created.err;
  EXPECT_FALSE(fs::exists(prefix));
  const auto run = gpuenv({"run", "-p", prefix.string(), "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(contains(run.err, "cannot contain ':'")) << run.err;
}

TEST_F(NamesAndSpecsCli, BaseAndRootAreReservedForCreate) {
  for (const std::string name : {"base", "root"}) {
    const auto result = create({"-n", name}, {"tool"});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_TRUE(contains(result.err, "'" + name + "' is a reserved environment name")) << result.err;
  }
  EXPECT_FALSE(fs::exists(machine / "root/conda-meta"));
}

TEST_F(NamesAndSpecsCli, EmptyBlankAndMatchEverythingSpecsAreErrors) {
  // shown: how the message quotes it (a control character escaped).
  for (const auto& [spec, shown] : std::vector<std::pair<std::string, std::string>>{
           {"", ""}, {"   ", "   "}, {"\t", "\\x09"}, {"*", "*"}, {"*[version=1.0]", "*[version=1.0]"}}) {
    const auto result = create({"-n", "x"}, {spec});
    EXPECT_EQ(result.exit_code, 1) << "[" << spec << "] " << result.out;
    EXPECT_FALSE(contains(result.out, "already installed")) << result.out;
    EXPECT_TRUE(contains(result.err, "'" + shown + "' is an empty package spec") ||
                contains(result.err, "'" + shown + "' matches every package name"))
        << result.err;
  }
  EXPECT_EQ(environments(), std::vector<std::string>{});

  const auto prefix = machine / "env";
  ASSERT_EQ(create({"-p", prefix.string()}, {"tool"}).exit_code, 0);
  for (const std::string command : {"install", "update", "remove"}) {
    for (const std::string spec : {"", "*"}) {
      const auto result = gpuenv({command, "-y", "-p", prefix.string(), spec});
      EXPECT_EQ(result.exit_code, 1) << command << " [" << spec << "] " << result.out;
      EXPECT_TRUE(contains(result.err, "'" + spec + "'")) << result.err;
    }
  }
  EXPECT_EQ(installed_dists(prefix), (Dists{"tool-1.0-0"}));
}

TEST_F(NamesAndSpecsCli, EnvironmentFilesCannotAskForEverythingOrNothing) {
  const auto file = machine / "environment.yml";
  for (const std::string dependency : {"'*'", "''", "'  '"}) {
    write_text_file(file, "name: x\ndependencies:\n  - tool\n  - " + dependency + "\n");
    const auto result = gpuenv({"create", "-y", "-c", machine.channel(), "--override-channels", "--file", file.string()});
    EXPECT_EQ(result.exit_code, 1) << dependency;
    EXPECT_TRUE(contains(result.err, file.string() + ":4: '")) << result.err;
  }
  const auto list = machine / "specs.txt";
  write_text_file(list, "tool\n*\n");
  const auto result = gpuenv({"create", "-y", "-n", "x", "-c", machine.channel(), "--override-channels", "--file", list.string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, list.string() + ":2: '*' matches every package name")) << result.err;
  EXPECT_EQ(environments(), std::vector<std::string>{});
}

}  // namespace
