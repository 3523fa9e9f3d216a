// `gpuenv list` on environments written in conda's format: conda's table,
// --json, --export, --canonical, --explicit, the regex filter, and clear
// errors for what is not an environment.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "installed_prefix_fixture.hpp"
#include "solve_cli_fixture.hpp"
#include "support/package_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::testing {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

class ListCli : public ::testing::Test {
 protected:
  void SetUp() override {
    local_channel = "file://" + (machine / "local-channel").string();
    packages = three_channel_packages(local_channel);
    make_empty_environment(prefix);
    for (const auto& package : packages) install_by_hand(prefix, package);
  }

  CommandOutput list(std::vector<std::string> args, std::vector<std::string> extra_env = {}) const {
    args.insert(args.begin(), "list");
    return run_gpuenv(args, machine.env(std::move(extra_env)));
  }

  SolveCliMachine machine;
  std::filesystem::path prefix = machine / "envs/demo";
  std::string local_channel;
  std::vector<CondaMetaPackage> packages;
};

TEST_F(ListCli, PrintsCondasTableForACondaWrittenPrefix) {
  const auto result = list({"-p", prefix.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::vector<std::string> expected = {
      "# packages in environment at " + prefix.string() + ":",
      "#",
      "# Name                    Version                   Build  Channel",
      fmt::format("{:<25} {:<15} {:>15}  [cuda12]  {}", "gpu-tool", "2.0", "cuda12_0", local_channel),
      // pkgs/main is part of `defaults`: conda shows no channel for it.
      fmt::format("{:<25} {:<15} {:>15}", "libgcc", "14.2.0", "h77fa898_1"),
      fmt::format("{:<25} {:<15} {:>15}    conda-forge", "libzlib", "1.3.1", "hb9d3cd8_2"),
      fmt::format("{:<25} {:<15} {:>15}    conda-forge", "zlib", "1.3.1", "hb9d3cd8_2"),
  };
  EXPECT_EQ(lines_of(result.out), expected);
  EXPECT_EQ(result.err, "");
}

TEST_F(ListCli, JsonHasCondasFieldsPerPackage) {
  const auto result = list({"-p", prefix.string(), "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = nlohmann::json::parse(result.out);
  ASSERT_TRUE(document.is_array());
  ASSERT_EQ(document.size(), 4u);
  const nlohmann::json expected_zlib = {{"base_url", "https://conda.anaconda.org/conda-forge"},
                                        {"build_number", 2},
                                        {"build_string", "hb9d3cd8_2"},
                                        {"channel", "conda-forge"},
                                        {"dist_name", "zlib-1.3.1-hb9d3cd8_2"},
                                        {"name", "zlib"},
                                        {"platform", "linux-64"},
                                        {"version", "1.3.1"}};
  EXPECT_EQ(document[3], expected_zlib);
  EXPECT_EQ(document[1]["channel"], "pkgs/main");
  EXPECT_EQ(document[1]["base_url"], "https://repo.anaconda.com/pkgs/main");
  EXPECT_EQ(document[0]["name"], "gpu-tool");
  EXPECT_EQ(document[0]["base_url"], local_channel);
}

TEST_F(ListCli, RegexFiltersByNameCaseInsensitively) {
  auto result = list({"-p", prefix.string(), "--json", "ZLIB"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto document = nlohmann::json::parse(result.out);
  ASSERT_EQ(document.size(), 2u);
  EXPECT_EQ(document[0]["name"], "libzlib");
  EXPECT_EQ(document[1]["name"], "zlib");

  result = list({"-p", prefix.string(), "--json", "--full-name", "zlib"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  document = nlohmann::json::parse(result.out);
  ASSERT_EQ(document.size(), 1u);
  EXPECT_EQ(document[0]["name"], "zlib");

  result = list({"-p", prefix.string(), "^nothing"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(lines_of(result.out).size(), 3u) << "only the header";
}

TEST_F(ListCli, BadRegexIsAClearError) {
  const auto result = list({"-p", prefix.string(), "zlib("});
  EXPECT_EQ(result.exit_code, 2);  // a usage error, as in every command
  EXPECT_NE(result.err.find("'zlib(' is not a regular expression"), std::string::npos) << result.err;
}

TEST_F(ListCli, ExportAndCanonicalForms) {
  auto result = list({"-p", prefix.string(), "--export"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(lines_of(result.out),
            (std::vector<std::string>{"# This file may be used to create an environment using:",
                                      "# $ conda create --name <env> --file <this file>", "# platform: linux-64",
                                      "gpu-tool=2.0=cuda12_0", "libgcc=14.2.0=h77fa898_1",
                                      "libzlib=1.3.1=hb9d3cd8_2", "zlib=1.3.1=hb9d3cd8_2"}));
  result = list({"-p", prefix.string(), "--canonical", "lib"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "libgcc-14.2.0-h77fa898_1\nlibzlib-1.3.1-hb9d3cd8_2\nzlib-1.3.1-hb9d3cd8_2\n");
}

TEST_F(ListCli, ExplicitListsUrlsWithSha256DependenciesFirst) {
  const auto result = list({"-p", prefix.string(), "--explicit"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto by_name = [&](const std::string& name) {
    for (const auto& package : packages) {
      if (package.name == name) return package;
    }
    throw std::runtime_error(name);
  };
  const auto line = [&](const std::string& name) { return by_name(name).url() + "#" + by_name(name).digest(); };
  EXPECT_EQ(lines_of(result.out),
            (std::vector<std::string>{"# This file may be used to create an environment using:",
                                      "# $ conda create --name <env> --file <this file>", "# platform: linux-64",
                                      "@EXPLICIT", line("libgcc"), line("libzlib"), line("zlib"),
                                      line("gpu-tool")}));

  const auto md5 = list({"-p", prefix.string(), "--explicit", "--md5"});
  ASSERT_EQ(md5.exit_code, 0) << md5.err;
  EXPECT_NE(md5.out.find(by_name("zlib").url() + "#0123456789abcdef0123456789abcdef\n"), std::string::npos)
      << md5.out;
}

TEST_F(ListCli, Md5WithoutExplicitIsRefused) {
  const auto result = list({"-p", prefix.string(), "--md5"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("add --explicit"), std::string::npos) << result.err;
}

TEST_F(ListCli, UsesTheActiveEnvironmentWithoutPrefix) {
  const auto result = list({"--canonical", "^zlib$"}, {"CONDA_PREFIX=" + prefix.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "zlib-1.3.1-hb9d3cd8_2\n");

  const auto none = list({}, {"-CONDA_PREFIX"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("-p PREFIX or -n NAME"), std::string::npos) << none.err;
}

TEST_F(ListCli, NamedEnvironmentInTheRootPrefix) {
  const auto named = machine / "root/envs/tools";
  make_empty_environment(named);
  install_by_hand(named, packages[0]);
  const auto result = list({"-n", "tools", "--canonical"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "zlib-1.3.1-hb9d3cd8_2\n");
}

TEST_F(ListCli, MissingPrefixAndNonEnvironmentsAreClearErrors) {
  auto result = list({"-p", (machine / "nowhere").string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("does not exist"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("gpuenv create -p"), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");

  std::filesystem::create_directories(machine / "plain-directory");
  result = list({"-p", (machine / "plain-directory").string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("not a conda environment"), std::string::npos) << result.err;

  result = list({"-p", (machine / "nowhere").string(), "--json"});
  EXPECT_EQ(result.exit_code, 1);
  const auto document = nlohmann::json::parse(result.out);
  EXPECT_EQ(document["success"], false);
  EXPECT_NE(document["error"].get<std::string>().find("does not exist"), std::string::npos);
}

TEST_F(ListCli, DamagedRecordIsReportedAndTheOthersListed) {
  write_text_file(prefix / "conda-meta/broken-1.0-0.json", "{ not json");
  const auto result = list({"-p", prefix.string(), "--canonical"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(lines_of(result.out).size(), 4u) << result.out;
  EXPECT_NE(result.err.find("broken-1.0-0.json"), std::string::npos) << result.err;
}

TEST_F(ListCli, MicromambaStyleChannelNameAndMissingChannel) {
  // Some micromamba versions write the channel's name; very old records have none.
  CondaMetaPackage named{.name = "numpy", .version = "2.1.0", .build = "py312h0_0", .channel = "conda-forge"};
  install_by_hand(prefix, named);
  auto record = conda_meta_record(named, prefix);
  record["url"] = "https://conda.anaconda.org/conda-forge/linux-64/" + named.fn();
  write_text_file(prefix / "conda-meta" / (named.dist() + ".json"), record.dump());
  CondaMetaPackage nowhere{.name = "orphan", .version = "1.0", .build = "0", .channel = ""};
  auto orphan = conda_meta_record(nowhere, prefix);
  orphan.erase("channel");
  orphan.erase("url");
  write_text_file(prefix / "conda-meta/orphan-1.0-0.json", orphan.dump());

  auto result = list({"-p", prefix.string(), "--full-name", "numpy|orphan"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), 5u) << result.out;
  EXPECT_EQ(lines[3], fmt::format("{:<25} {:<15} {:>15}    conda-forge", "numpy", "2.1.0", "py312h0_0"));
  EXPECT_EQ(lines[4], fmt::format("{:<25} {:<15} {:>15}    <unknown>", "orphan", "1.0", "0"));

  result = list({"-p", prefix.string(), "--explicit"});
  EXPECT_NE(result.out.find("# no URL for: orphan-1.0-0.conda\n"), std::string::npos) << result.out;
}

// A gpuenv killed in the middle of changing the environment: `list`
// settles the change first (rolled back before the commit, completed after
// it) and then lists the settled state, never a mix.
TEST_F(ListCli, SettlesAKilledTransactionBeforeListing) {
  const auto channel_dir = machine / "built-channel";
  ChannelBuilder channel(channel_dir, "file://" + channel_dir.string());
  channel.add(PackageBuilder("base-lib", "1.0").noarch_generic().file("share/base.txt", "base\n"));
  channel.add(PackageBuilder("extra-tool", "2.0").file("bin/extra-tool", "#!/bin/sh\necho extra\n", 0755));
  const auto env_dir = machine / "crash-env";
  const std::vector<std::string> channel_args = {"-c", channel_dir.string(), "--override-channels"};
  auto args = std::vector<std::string>{"create", "-y", "-p", env_dir.string()};
  args.insert(args.end(), channel_args.begin(), channel_args.end());
  args.push_back("base-lib");
  const auto created = run_gpuenv(args, machine.env());
  ASSERT_EQ(created.exit_code, 0) << created.err;

  args = {"install", "-y", "-p", env_dir.string()};
  args.insert(args.end(), channel_args.begin(), channel_args.end());
  args.push_back("extra-tool");
  const auto killed = run_gpuenv(args, machine.env({"GPUENV_TEST_CRASH_AT=before_commit"}));
  ASSERT_EQ(killed.exit_code, 128 + 9) << killed.err;
  ASSERT_TRUE(std::filesystem::exists(env_dir / "bin/extra-tool")) << "killed after linking";

  auto listed = list({"-p", env_dir.string(), "--canonical"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out, "base-lib-1.0-0\n");
  EXPECT_NE(listed.err.find("rolled back"), std::string::npos) << listed.err;
  EXPECT_FALSE(std::filesystem::exists(env_dir / "bin/extra-tool"));

  const auto committed = run_gpuenv(args, machine.env({"GPUENV_TEST_CRASH_AT=after_commit"}));
  ASSERT_EQ(committed.exit_code, 128 + 9) << committed.err;
  listed = list({"-p", env_dir.string(), "--canonical"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out, "base-lib-1.0-0\nextra-tool-2.0-0\n");
  EXPECT_NE(listed.err.find("completed"), std::string::npos) << listed.err;
}

}  // namespace
}  // namespace gpuenv::testing
