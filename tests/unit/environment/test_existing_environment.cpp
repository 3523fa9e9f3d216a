// Opening an environment that already exists (list, run, shell activate,
// doctor), and the shell integration's choices: each failure a typed error
// with the kind that decides the exit status and conda's exception name.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "gpuenv/environment/installed_environment.hpp"
#include "gpuenv/environment/shell_integration.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::environment {
namespace {

namespace fs = std::filesystem;

util::EnvLookup lookup(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](std::string_view name) -> std::optional<std::string> {
    const auto found = variables.find(std::string(name));
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

TEST(OpenEnvironment, FindsChecksAndSettlesAnEnvironment) {
  testing::TempDirectory dir;
  const auto prefix = dir.path() / "env";
  fs::create_directories(prefix / "conda-meta");
  const auto opened = open_environment({prefix.string(), ""}, lookup({}), WhenNoPrefixGiven::use_active_prefix,
                                       PrefixUse::read);
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(opened->prefix, prefix);
  EXPECT_TRUE(opened->notes.empty());
  EXPECT_TRUE(opened->warnings.empty());

  const auto active = open_environment({}, lookup({{"CONDA_PREFIX", prefix.string()}}),
                                       WhenNoPrefixGiven::use_active_prefix, PrefixUse::read);
  ASSERT_TRUE(active) << active.error().message;
  EXPECT_EQ(active->prefix, prefix);
}

TEST(OpenEnvironment, EachFailureHasItsKind) {
  testing::TempDirectory dir;
  const auto none = open_environment({}, lookup({}), WhenNoPrefixGiven::use_active_prefix, PrefixUse::read);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, ErrorKind::usage);
  EXPECT_NE(none.error().message.find("-p PREFIX or -n NAME"), std::string::npos) << none.error().message;

  const auto missing = open_environment({(dir.path() / "missing").string(), ""}, lookup({}),
                                        WhenNoPrefixGiven::use_active_prefix, PrefixUse::read);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::no_environment);
  EXPECT_STREQ(conda_exception_name(missing.error().kind), "EnvironmentLocationNotFound");
  EXPECT_EQ(exit_status(missing.error().kind), 1);

  fs::create_directories(dir.path() / "plain");
  const auto plain = open_environment({(dir.path() / "plain").string(), ""}, lookup({}),
                                      WhenNoPrefixGiven::use_active_prefix, PrefixUse::read);
  ASSERT_FALSE(plain);
  EXPECT_NE(plain.error().message.find("no conda-meta directory"), std::string::npos) << plain.error().message;

  // A ':' matters only where the prefix goes on PATH.
  const auto colon = dir.path() / "a:b";
  fs::create_directories(colon / "conda-meta");
  EXPECT_TRUE(open_environment({colon.string(), ""}, lookup({}), WhenNoPrefixGiven::refuse, PrefixUse::read));
  const auto on_path =
      open_environment({colon.string(), ""}, lookup({}), WhenNoPrefixGiven::refuse, PrefixUse::put_on_path);
  ASSERT_FALSE(on_path);
  EXPECT_EQ(on_path.error().kind, ErrorKind::usage);
  EXPECT_EQ(exit_status(on_path.error().kind), 2);
}

TEST(ShellIntegration, ChoosesTheShellFromTheOptionOrShell) {
  EXPECT_EQ(chosen_shell("zsh", lookup({})).value(), "zsh");
  EXPECT_EQ(chosen_shell("", lookup({{"SHELL", "/usr/bin/dash"}})).value(), "posix");
  EXPECT_EQ(chosen_shell("sh", lookup({{"SHELL", "/bin/zsh"}})).value(), "posix");
  const auto unknown = chosen_shell("fish", lookup({}));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, ErrorKind::usage);
  EXPECT_NE(unknown.error().message.find("not 'fish'"), std::string::npos) << unknown.error().message;
  EXPECT_FALSE(chosen_shell("", lookup({})));
}

TEST(ShellIntegration, TheHookCallsThisProgramQuoted) {
  const auto hook = shell_hook_script("bash", "/opt/my tools/gpuenv");
  EXPECT_NE(hook.find("export GPUENV_EXE='/opt/my tools/gpuenv'"), std::string::npos) << hook;
  EXPECT_NE(hook.find("shell \"$@\" --shell bash"), std::string::npos) << hook;
}

TEST(ShellIntegration, TheActivationTargetIsTheArgumentOrTheOptionsOrBase) {
  EXPECT_EQ(activation_target("", {}).value().name, "base");
  EXPECT_EQ(activation_target("ml", {}).value().name, "ml");
  EXPECT_EQ(activation_target("./envs/ml", {}).value().path, "./envs/ml");
  EXPECT_EQ(activation_target("", {"/p", ""}).value().path, "/p");
  const auto both = activation_target("ml", {"", "other"});
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().kind, ErrorKind::usage);
}

TEST(ShellIntegration, ReactivationActivatesTheActiveEnvironmentAgainOrSaysNoneIsActive) {
  for (const auto& variables : {std::map<std::string, std::string>{}, {{"CONDA_PREFIX", ""}}}) {
    const auto none = reactivation_changes(lookup(variables));
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().kind, ErrorKind::no_environment);
    EXPECT_EQ(none.error().message, "no environment is active: nothing to reactivate");
  }
  testing::TempDirectory dir;
  const auto prefix = dir.path() / "env";
  fs::create_directories(prefix / "etc/conda/activate.d");
  fs::create_directories(prefix / "etc/conda/deactivate.d");
  testing::write_text_file(prefix / "etc/conda/activate.d/a.sh", "true\n");
  testing::write_text_file(prefix / "etc/conda/deactivate.d/d.sh", "true\n");
  const auto env = lookup({{"CONDA_PREFIX", prefix.string()}, {"CONDA_SHLVL", "1"}, {"PATH", (prefix / "bin").string()}});
  const auto changes = reactivation_changes(env);
  ASSERT_TRUE(changes) << changes.error().message;
  // Reactivation: the scripts run again, deactivate.d first.
  EXPECT_EQ(changes->deactivate_scripts, (std::vector<fs::path>{prefix / "etc/conda/deactivate.d/d.sh"}));
  EXPECT_EQ(changes->activate_scripts, (std::vector<fs::path>{prefix / "etc/conda/activate.d/a.sh"}));
  EXPECT_EQ(changes->exported_variables, activation_changes(prefix, env).exported_variables);
}

}  // namespace
}  // namespace gpuenv::environment
