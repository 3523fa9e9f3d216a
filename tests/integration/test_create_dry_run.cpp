// `gpuenv create --dry-run` end to end on conda's test-recipe channel and
// the conda-format-repo channel (file paths, as users pass local channels).
#include <gtest/gtest.h>

#include "solve_cli_fixture.hpp"

namespace {

using gpuenv::testing::linked;
using gpuenv::testing::parse_json;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::SolveCliMachine;
using gpuenv::testing::test_channel;

const std::string recipes = test_channel("channels/conda-test-recipes");

TEST(CreateDryRun, JsonListsTheLinksInCondasShape) {
  SolveCliMachine machine;
  const auto prefix = (machine / "envs/demo").string();
  const auto result = run_gpuenv(
      {"create", "-p", prefix, "-c", recipes, "--override-channels", "--dry-run", "--json", "another_dependent"},
      machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse_json(result);
  EXPECT_EQ(document["success"], true);
  EXPECT_EQ(document["prefix"], prefix);
  // another_dependent 2.0 -> dependent 2.0 -> dependency >=2.0,<3.0a0; dependencies first.
  EXPECT_EQ(linked(document),
            (std::vector<std::string>{"dependency 2.0 0", "dependent 2.0 0", "another_dependent 2.0 0"}));
  EXPECT_TRUE(document["actions"]["UNLINK"].empty());
  const auto& first = document["actions"]["LINK"][0];
  EXPECT_EQ(first["build_number"], 0);
  EXPECT_EQ(first["subdir"], "noarch");
  EXPECT_EQ(first["fn"], "dependency-2.0-0.conda");
  EXPECT_EQ(first["url"], "file://" + recipes + "/noarch/dependency-2.0-0.conda");
  EXPECT_EQ(first["sha256"], "4df38132cf16e894b75290c0f425c9276f715acc150fbdfc2a2526e0c115cc68");
  EXPECT_EQ(first["channel"], "file://" + recipes);
}

TEST(CreateDryRun, TextShowsATableOfWhatWouldBeLinked) {
  SolveCliMachine machine;
  const auto result = run_gpuenv({"create", "-n", "demo", "-c", recipes, "--override-channels", "--dry-run", "-y",
                                  "dependent=1.0"},
                                 machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("+ dependency"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("+ dependent"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("1.0"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Link 2 package(s)"), std::string::npos) << result.out;
  // -n puts the environment in the envs directory of the root prefix.
  EXPECT_NE(result.out.find((machine / "root/envs/demo").string()), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Dry run"), std::string::npos) << result.out;
}

TEST(CreateDryRun, PrefersTheCondaArchiveOfAPackagePublishedInBothFormats) {
  SolveCliMachine machine;
  const auto result = run_gpuenv({"create", "-p", (machine / "env").string(), "-c",
                                  test_channel("channels/conda-format-repo"), "--override-channels", "--dry-run",
                                  "--json", "zlib"},
                                 machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse_json(result);
  EXPECT_EQ(linked(document), (std::vector<std::string>{"libgcc-ng 8.2.0 hdf63c60_1", "zlib 1.2.11 h7b6447c_3"}));
  EXPECT_EQ(document["actions"]["LINK"][1]["fn"], "zlib-1.2.11-h7b6447c_3.conda");
}

TEST(CreateDryRun, AWarmStartGivesTheSameAnswerFromTheSolvCache) {
  SolveCliMachine machine;
  const std::vector<std::string> args = {"create", "-p", (machine / "env").string(), "-c", recipes,
                                         "--override-channels", "--dry-run", "--json", "another_dependent"};
  const auto cold = run_gpuenv(args, machine.env());
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  ASSERT_TRUE(std::filesystem::exists(machine / "cache/solv"));
  const auto warm = run_gpuenv(args, machine.env());
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_EQ(cold.out, warm.out);
}

TEST(CreateDryRun, AnUnsatisfiableRequestIsExplainedAsJson) {
  SolveCliMachine machine;
  const auto result = run_gpuenv({"create", "-p", (machine / "env").string(), "-c", recipes, "--override-channels",
                                  "--dry-run", "--json", "dependent=1.0", "dependency=2.0"},
                                 machine.env());
  EXPECT_EQ(result.exit_code, 1);
  const auto document = parse_json(result);
  EXPECT_EQ(document["success"], false);
  EXPECT_FALSE(document["error"].get<std::string>().empty());
  std::string explanation;
  for (const auto& line : document["explanation"]) explanation += line.get<std::string>() + "\n";
  EXPECT_NE(explanation.find("cannot install dependent=1.0"), std::string::npos) << explanation;
  EXPECT_NE(explanation.find("needs dependency >=1.0,<2.0a0"), std::string::npos) << explanation;
}

TEST(CreateDryRun, AnUnsatisfiableRequestIsExplainedAsText) {
  SolveCliMachine machine;
  const auto result = run_gpuenv(
      {"create", "-p", (machine / "env").string(), "-c", recipes, "--override-channels", "--dry-run", "unsatisfiable"},
      machine.env());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("unsatisfiable 1.0 0 needs versioned <1.0, but no version of versioned matches"),
            std::string::npos)
      << result.err;
}

// Without --dry-run, create installs (test_install_cli.cpp), once confirmed.
TEST(CreateDryRun, WithoutDryRunOrConfirmationNothingIsCreated) {
  SolveCliMachine machine;
  const auto result =
      run_gpuenv({"create", "-p", (machine / "env").string(), "-c", recipes, "--override-channels", "dependent"},
                 machine.env());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("add -y"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(machine / "env"));
}

TEST(CreateDryRun, EachChannelOptionTakesOneValueAndSpecsMayFollowIt) {
  SolveCliMachine machine;
  const auto result = run_gpuenv({"create", "-p", (machine / "env").string(), "--dry-run", "--json",
                                  "--override-channels", "-c", recipes, "dependent", "-c",
                                  test_channel("channels/conda-format-repo"), "zlib"},
                                 machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(linked(parse_json(result)).size(), 4u) << result.out;
}

TEST(CreateDryRun, UsageMistakesAreNamed) {
  SolveCliMachine machine;
  const auto no_target = run_gpuenv({"create", "--dry-run", "-c", recipes, "dependent"}, machine.env());
  EXPECT_EQ(no_target.exit_code, 2);
  EXPECT_NE(no_target.err.find("-p PREFIX or -n NAME"), std::string::npos) << no_target.err;

  const auto bad_spec =
      run_gpuenv({"create", "-n", "x", "--dry-run", "-c", recipes, "--override-channels", "dependent >=>1"},
                 machine.env());
  EXPECT_EQ(bad_spec.exit_code, 1);
  EXPECT_NE(bad_spec.err.find("dependent >=>1"), std::string::npos) << bad_spec.err;

  const auto no_channel = run_gpuenv({"create", "-n", "x", "--dry-run", "-c", (machine / "nowhere").string(),
                                      "--override-channels", "dependent"},
                                     machine.env());
  EXPECT_EQ(no_channel.exit_code, 1);
  EXPECT_NE(no_channel.err.find("nowhere"), std::string::npos) << no_channel.err;

  const auto missing = run_gpuenv(
      {"create", "-n", "x", "--dry-run", "-c", recipes, "--override-channels", "no-such-package"}, machine.env());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no package named no-such-package is in the channels"), std::string::npos)
      << missing.err;
}

}  // namespace
