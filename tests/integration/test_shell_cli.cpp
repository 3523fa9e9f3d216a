// `gpuenv shell hook/activate/deactivate`: after
// `eval "$(gpuenv shell hook --shell bash)"`, `gpuenv activate` and
// `gpuenv deactivate` change the running shell as conda's do.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "installed_prefix_fixture.hpp"
#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::testing {
namespace {

std::string find_shell(const std::string& name) {
  for (const char* directory : {"/bin", "/usr/bin", "/usr/local/bin"}) {
    const auto candidate = std::filesystem::path(directory) / name;
    if (std::filesystem::exists(candidate)) return candidate.string();
  }
  return {};
}

class ShellCli : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [prefix, tool] : {std::pair{first, "first-tool"}, std::pair{second, "second-tool"}}) {
      make_empty_environment(prefix);
      CondaMetaPackage package{.name = tool,
                               .version = "1.0",
                               .build = "0",
                               .channel = "https://conda.anaconda.org/conda-forge/linux-64",
                               .files = {{std::string("bin/") + tool, "#!/bin/sh\necho hi\n"}}};
      install_by_hand(prefix, package);
    }
    write_text_file(first / "conda-meta/state", R"({"env_vars": {"FIRST_VAR": "first's value"}})");
    write_text_file(first / "etc/conda/activate.d/first.sh", "export FIRST_SCRIPT=ran\n");
    write_text_file(first / "etc/conda/deactivate.d/first.sh",
                    "unset FIRST_SCRIPT\necho \"deactivating first\" >&2\n");
  }

  // Runs `script` in `shell` after the hook, with a known PATH and no
  // environment active.
  CommandOutput in_shell(const std::string& shell, const std::string& script, const std::string& hook_shell = "") const {
    const std::string hook = "eval \"$(" + shell_quote(GPUENV_BINARY) + " shell hook --shell " +
                             (hook_shell.empty() ? std::filesystem::path(shell).filename().string() : hook_shell) +
                             ")\"\n";
    return run_program(shell, {"-c", hook + script},
                       machine.env({"PATH=/usr/bin:/bin", "-CONDA_PREFIX", "-CONDA_SHLVL", "-CONDA_DEFAULT_ENV",
                                    "-CONDA_PROMPT_MODIFIER", "-CONDA_PREFIX_1", "-FIRST_VAR", "-FIRST_SCRIPT",
                                    "-CONDA_CHANGEPS1"}));
  }

  SolveCliMachine machine;
  std::filesystem::path first = machine / "root/envs/first";
  std::filesystem::path second = machine / "elsewhere/second";
};

constexpr const char* report = R"(echo "prefix=${CONDA_PREFIX-} level=${CONDA_SHLVL-} name=${CONDA_DEFAULT_ENV-} var=${FIRST_VAR-} script=${FIRST_SCRIPT-} ps1=[${PS1-}] path=$PATH"
)";

TEST_F(ShellCli, BashActivateAndDeactivateChangeTheShell) {
  const auto result = in_shell("/bin/bash", std::string("PS1='$ '\n") + "gpuenv activate first\n" + report +
                                                "command -v first-tool\n"
                                                "gpuenv deactivate\n" +
                                                report + "command -v first-tool || echo no-first-tool\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto bin = (first / "bin").string();
  EXPECT_EQ(result.out,
            "prefix=" + first.string() +
                " level=1 name=first var=first's value script=ran ps1=[(first) $ ] path=" + bin +
                ":/usr/bin:/bin\n" + bin + "/first-tool\n" +
                "prefix= level=0 name= var= script= ps1=[$ ] path=/usr/bin:/bin\nno-first-tool\n");
  EXPECT_NE(result.err.find("deactivating first"), std::string::npos) << result.err;
}

TEST_F(ShellCli, StackedActivationReturnsToThePreviousEnvironment) {
  const auto result =
      in_shell("/bin/bash", std::string("gpuenv activate -n first\ngpuenv activate ") + second.string() + "\n" +
                                report + "echo \"previous=$CONDA_PREFIX_1\"\ngpuenv deactivate\n" + report +
                                "gpuenv deactivate\n" + report);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto lines = [&] {
    std::vector<std::string> split;
    std::size_t start = 0;
    while (start < result.out.size()) {
      const auto end = result.out.find('\n', start);
      split.push_back(result.out.substr(start, end - start));
      start = end + 1;
    }
    return split;
  }();
  ASSERT_EQ(lines.size(), 4u) << result.out;
  // The second environment replaces the first one's bin; its variables and
  // scripts are the first's no longer.
  EXPECT_EQ(lines[0], "prefix=" + second.string() + " level=2 name=" + second.string() + " var= script= ps1=[] path=" +
                          (second / "bin").string() + ":/usr/bin:/bin");
  EXPECT_EQ(lines[1], "previous=" + first.string());
  EXPECT_EQ(lines[2], "prefix=" + first.string() + " level=1 name=first var=first's value script=ran ps1=[] path=" +
                          (first / "bin").string() + ":/usr/bin:/bin");
  EXPECT_EQ(lines[3], "prefix= level=0 name= var= script= ps1=[] path=/usr/bin:/bin");
}

TEST_F(ShellCli, FailedActivationLeavesTheShellAlone) {
  const auto result = in_shell("/bin/bash", std::string("gpuenv activate -p ") + (machine / "missing").string() +
                                                "\necho status=$?\n" + report);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "status=1\nprefix= level=0 name= var= script= ps1=[] path=/usr/bin:/bin\n");
  EXPECT_NE(result.err.find("does not exist"), std::string::npos) << result.err;
}

TEST_F(ShellCli, OtherCommandsGoToTheProgram) {
  const auto result = in_shell("/bin/bash", "gpuenv list -p " + shell_quote(first.string()) + " --canonical\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "first-tool-1.0-0\n");
}

TEST_F(ShellCli, ActivateScriptIsPlainPosixCode) {
  const auto result = run_gpuenv({"shell", "activate", "-p", first.string(), "--shell", "bash"},
                                 machine.env({"PATH=/usr/bin:/bin", "-CONDA_PREFIX", "-CONDA_SHLVL"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("export CONDA_PREFIX='" + first.string() + "'\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("export FIRST_VAR='first'\\''s value'\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(". '" + (first / "etc/conda/activate.d/first.sh").string() + "'\n"), std::string::npos)
      << result.out;
}

TEST_F(ShellCli, DashRunsTheSameCode) {
  const auto dash = find_shell("dash");
  if (dash.empty()) GTEST_SKIP() << "dash is not installed";
  const auto result =
      in_shell(dash, std::string("PS1='$ '\ngpuenv activate first\n") + report + "gpuenv deactivate\n" + report, "posix");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "prefix=" + first.string() + " level=1 name=first var=first's value script=ran ps1=[(first) $ ] path=" +
                            (first / "bin").string() + ":/usr/bin:/bin\n" +
                            "prefix= level=0 name= var= script= ps1=[$ ] path=/usr/bin:/bin\n");
}

TEST_F(ShellCli, ZshRunsTheSameCode) {
  const auto zsh = find_shell("zsh");
  if (zsh.empty()) GTEST_SKIP() << "zsh is not installed";
  const auto parse = run_program(zsh, {"-n", "-c", "eval \"$(" + shell_quote(GPUENV_BINARY) + " shell hook -s zsh)\""});
  EXPECT_EQ(parse.exit_code, 0) << parse.err;
  const auto result =
      in_shell(zsh, std::string("PS1='$ '\ngpuenv activate first\n") + report + "gpuenv deactivate\n" + report);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "prefix=" + first.string() + " level=1 name=first var=first's value script=ran ps1=[(first) $ ] path=" +
                            (first / "bin").string() + ":/usr/bin:/bin\n" +
                            "prefix= level=0 name= var= script= ps1=[$ ] path=/usr/bin:/bin\n");
}

TEST_F(ShellCli, DeactivateWithNothingActiveChangesNothing) {
  const auto result = in_shell("/bin/bash", std::string("gpuenv deactivate\necho status=$?\n") + report);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "status=0\nprefix= level=0 name= var= script= ps1=[] path=/usr/bin:/bin\n");
  EXPECT_NE(result.err.find("no environment is active"), std::string::npos) << result.err;
}

TEST_F(ShellCli, UnknownShellIsRefused) {
  const auto result = run_gpuenv({"shell", "hook", "--shell", "fish"}, machine.env());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("bash, zsh and posix"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace gpuenv::testing
