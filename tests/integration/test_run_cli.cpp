// `gpuenv run`: the command runs with the environment activated (PATH,
// CONDA_* variables, the environment's variables, activate.d scripts), gets
// its arguments exactly as given, and its exit status is gpuenv's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "installed_prefix_fixture.hpp"
#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::testing {
namespace {

// Prints each argument in brackets, then the variables activation sets.
constexpr const char* show_script = R"SH(#!/bin/sh
for argument in "$@"; do printf '[%s]\n' "$argument"; done
printf 'CONDA_PREFIX=%s\n' "$CONDA_PREFIX"
printf 'CONDA_SHLVL=%s\n' "$CONDA_SHLVL"
printf 'CONDA_DEFAULT_ENV=%s\n' "$CONDA_DEFAULT_ENV"
printf 'CONDA_PROMPT_MODIFIER=%s\n' "$CONDA_PROMPT_MODIFIER"
printf 'PATH_FIRST=%s\n' "${PATH%%:*}"
printf 'FROM_STATE=%s\n' "${FROM_STATE-unset}"
printf 'FROM_PACKAGE=%s\n' "${FROM_PACKAGE-unset}"
printf 'FROM_SCRIPT=%s\n' "${FROM_SCRIPT-unset}"
printf 'PWD=%s\n' "$(pwd)"
)SH";

class RunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    make_empty_environment(prefix);
    CondaMetaPackage tools{.name = "show-tools",
                           .version = "1.0",
                           .build = "0",
                           .channel = "https://conda.anaconda.org/conda-forge/linux-64",
                           .files = {{"bin/show", show_script}, {"bin/fail-with", "#!/bin/sh\nexit \"$1\"\n"}}};
    install_by_hand(prefix, tools);
  }

  CommandOutput run(std::vector<std::string> args, std::vector<std::string> extra_env = {}) const {
    args.insert(args.begin(), "run");
    extra_env.insert(extra_env.end(), {"-CONDA_PREFIX", "-CONDA_SHLVL", "-CONDA_DEFAULT_ENV",
                                       "-CONDA_PROMPT_MODIFIER", "-FROM_STATE", "-FROM_PACKAGE", "-FROM_SCRIPT"});
    // Later assignments win: callers' CONDA_* values are applied after the unsets.
    std::vector<std::string> env = machine.env();
    std::vector<std::string> unsets, sets;
    for (auto& assignment : extra_env) (assignment.starts_with("-") ? unsets : sets).push_back(assignment);
    env.insert(env.end(), unsets.begin(), unsets.end());
    env.insert(env.end(), sets.begin(), sets.end());
    return run_gpuenv(args, env);
  }

  static bool has_line(const std::string& output, const std::string& line) {
    return ("\n" + output).find("\n" + line + "\n") != std::string::npos;
  }

  SolveCliMachine machine;
  std::filesystem::path prefix = machine / "root/envs/work";
};

TEST_F(RunCli, ActivatesTheEnvironmentAndPassesArgumentsExactly) {
  const std::vector<std::string> words = {"show", "two words", "", "$HOME", "'quoted'", "\"double\"",
                                          "*",    "-p",        "--help", "line\nbreak", "back\\slash"};
  std::vector<std::string> args = {"-n", "work", "--"};
  args.insert(args.end(), words.begin(), words.end());
  const auto result = run(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::string expected_arguments;
  for (std::size_t i = 1; i < words.size(); ++i) expected_arguments += "[" + words[i] + "]\n";
  EXPECT_TRUE(result.out.starts_with(expected_arguments)) << result.out;
  EXPECT_TRUE(has_line(result.out, "CONDA_PREFIX=" + prefix.string())) << result.out;
  EXPECT_TRUE(has_line(result.out, "CONDA_SHLVL=1")) << result.out;
  EXPECT_TRUE(has_line(result.out, "CONDA_DEFAULT_ENV=work")) << result.out;
  EXPECT_TRUE(has_line(result.out, "CONDA_PROMPT_MODIFIER=(work) ")) << result.out;
  EXPECT_TRUE(has_line(result.out, "PATH_FIRST=" + (prefix / "bin").string())) << result.out;
}

TEST_F(RunCli, WithoutDashesTheCommandsOptionsStayItsOwn) {
  const auto result = run({"-p", prefix.string(), "show", "-n", "other", "--cwd", "/", "-p"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.out.starts_with("[-n]\n[other]\n[--cwd]\n[/]\n[-p]\n")) << result.out;
  EXPECT_TRUE(has_line(result.out, "CONDA_DEFAULT_ENV=work")) << result.out;
}

TEST_F(RunCli, EnvironmentVariablesFromStateAndPackages) {
  write_text_file(prefix / "etc/conda/env_vars.d/tools.json",
                  R"({"FROM_PACKAGE": "package value", "FROM_STATE": "overridden by state"})");
  write_text_file(prefix / "conda-meta/state", R"({"env_vars": {"FROM_STATE": "it's from state"}})");
  const auto result = run({"-p", prefix.string(), "--", "show"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(has_line(result.out, "FROM_STATE=it's from state")) << result.out;
  EXPECT_TRUE(has_line(result.out, "FROM_PACKAGE=package value")) << result.out;
  EXPECT_TRUE(has_line(result.out, "FROM_SCRIPT=unset")) << result.out;
}

TEST_F(RunCli, SourcesActivateScriptsInOrderAndHidesTheCommandFromThem) {
  // Scripts see no positional arguments (as when conda activate sources
  // them), may change PATH, and run in name order.
  write_text_file(prefix / "etc/conda/activate.d/10-first.sh",
                  "export FROM_SCRIPT=\"first:$#\"\nexport PATH=\"$CONDA_PREFIX/extra:$PATH\"\n");
  write_text_file(prefix / "etc/conda/activate.d/20-second.sh", "export FROM_SCRIPT=\"$FROM_SCRIPT,second\"\n");
  write_text_file(prefix / "etc/conda/activate.d/ignored.csh", "setenv FROM_SCRIPT csh\n");
  write_text_file(prefix / "extra/only-here", "#!/bin/sh\necho \"only here: $*\"\n");
  std::filesystem::permissions(prefix / "extra/only-here", std::filesystem::perms(0755));

  auto result = run({"-p", prefix.string(), "--", "show", "a b", "$c"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.out.starts_with("[a b]\n[$c]\n")) << result.out;
  EXPECT_TRUE(has_line(result.out, "FROM_SCRIPT=first:0,second")) << result.out;

  result = run({"-p", prefix.string(), "--", "only-here", "x  y"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "only here: x  y\n");
}

TEST_F(RunCli, ExitStatusIsTheCommands) {
  EXPECT_EQ(run({"-p", prefix.string(), "--", "fail-with", "3"}).exit_code, 3);
  EXPECT_EQ(run({"-p", prefix.string(), "--", "fail-with", "0"}).exit_code, 0);
  write_text_file(prefix / "etc/conda/activate.d/a.sh", "true\n");
  EXPECT_EQ(run({"-p", prefix.string(), "--", "fail-with", "42"}).exit_code, 42);
}

TEST_F(RunCli, CommandNotFoundIs127WithAMessage) {
  auto result = run({"-p", prefix.string(), "--", "no-such-command-here"});
  EXPECT_EQ(result.exit_code, 127);
  EXPECT_NE(result.err.find("no-such-command-here: command not found in the environment"), std::string::npos)
      << result.err;
  // The same when activate.d scripts make a shell run the command.
  write_text_file(prefix / "etc/conda/activate.d/a.sh", "true\n");
  result = run({"-p", prefix.string(), "--", "no-such-command-here"});
  EXPECT_EQ(result.exit_code, 127);
  EXPECT_NE(result.err.find("no-such-command-here: command not found in the environment"), std::string::npos)
      << result.err;
}

TEST_F(RunCli, WorkingDirectory) {
  std::filesystem::create_directories(machine / "work dir");
  auto result = run({"-p", prefix.string(), "--cwd", (machine / "work dir").string(), "--", "show"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(has_line(result.out, "PWD=" + (machine / "work dir").string())) << result.out;

  result = run({"-p", prefix.string(), "--cwd", (machine / "missing").string(), "--", "show"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("--cwd"), std::string::npos) << result.err;
}

TEST_F(RunCli, ReplacesAnActiveEnvironmentsBinAsCondaDoes) {
  const auto other = machine / "other-env";
  make_empty_environment(other);
  const std::string path = (other / "bin").string() + ":/usr/bin:/bin";
  const auto result = run({"-p", prefix.string(), "--", "sh", "-c", "echo \"$PATH|$CONDA_SHLVL|$CONDA_PREFIX_1\""},
                          {"PATH=" + path, "CONDA_PREFIX=" + other.string(), "CONDA_SHLVL=1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, (prefix / "bin").string() + ":/usr/bin:/bin|2|" + other.string() + "\n");
}

TEST_F(RunCli, ClearErrors) {
  auto result = run({"-p", (machine / "missing").string(), "--", "show"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("does not exist"), std::string::npos) << result.err;

  result = run({"-p", prefix.string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("say which command to run"), std::string::npos) << result.err;

  result = run({"-p", prefix.string(), "--unknown", "show"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("gpuenv run has no option --unknown"), std::string::npos) << result.err;

  result = run({"--", "show"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("-p PREFIX or -n NAME"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace gpuenv::testing
