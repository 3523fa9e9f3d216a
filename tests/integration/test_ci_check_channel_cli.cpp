// `gpuenv ci check-channel`, the final CI job's check, end to end: two
// noarch packages built with `gpuenv build` into one channel; the one whose
// dependencies the channel holds is really installed from it alone and
// passes `gpuenv doctor`, the one needing a package from elsewhere is
// skipped saying so, and a package that cannot be installed fails the check.
// No network: a local channel.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::write_text_file;

std::string noarch_recipe(const std::string& name, const std::string& run_requirement) {
  std::string text = "package:\n  name: " + name + "\n  version: \"1.0\"\nbuild:\n  noarch: generic\n  script:\n" +
                     "    - mkdir -p \"$PREFIX/share/" + name + "\"\n    - echo hi > \"$PREFIX/share/" + name +
                     "/hi.txt\"\n";
  if (!run_requirement.empty()) text += "requirements:\n  run:\n    - " + run_requirement + "\n";
  return text;
}

TEST(CiCheckChannelCli, InstallsWhatTheChannelAloneProvidesAndSkipsTheRest) {
  gpuenv::testing::SolveCliMachine machine;
  for (const char* subdir : {"noarch", "linux-64"}) {
    write_text_file(machine / "empty" / subdir / "repodata.json",
                    std::string(R"({"info": {"subdir": ")") + subdir + R"("}, "packages": {}, "packages.conda": {}})");
  }
  const auto channel = machine / "channel";
  for (const auto& [name, run] : std::vector<std::pair<std::string, std::string>>{
           {"greeting", ""}, {"greeting-app", "greeting >=1"}, {"needy", "zlib-from-elsewhere >=1"}}) {
    write_text_file(machine / name / "recipe.yaml", noarch_recipe(name, run));
    const auto built = run_gpuenv({"build", (machine / name).string(), "--output-dir", channel.string(), "-c",
                                   "file://" + (machine / "empty").string(), "--override-channels"},
                                  machine.env());
    ASSERT_EQ(built.exit_code, 0) << name << ": " << built.err;
  }
  ASSERT_EQ(run_gpuenv({"index", channel.string()}, machine.env()).exit_code, 0);

  const auto checked = run_gpuenv({"ci", "check-channel", channel.string(), "--gpu", "sm_80", "--work-dir",
                                   (machine / "work").string(), "--json"},
                                  machine.env());
  ASSERT_EQ(checked.exit_code, 0) << checked.err << checked.out;
  const auto document = gpuenv::testing::parse_json(checked);
  EXPECT_TRUE(document["success"].get<bool>());
  ASSERT_EQ(document["packages"].size(), 3u) << checked.out;
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& package : document["packages"]) {
    const auto spec = package["spec"].get<std::string>();
    by_name[spec.substr(0, spec.find('='))] = package;
  }
  EXPECT_EQ(by_name["greeting"]["verdict"], "passed") << checked.out;
  EXPECT_EQ(by_name["greeting-app"]["verdict"], "passed") << checked.out;  // its dependency from the channel
  EXPECT_EQ(by_name["needy"]["verdict"], "skipped") << checked.out;
  EXPECT_NE(by_name["needy"]["reason"].get<std::string>().find("needs zlib-from-elsewhere, not in the channel"),
            std::string::npos);
  // Real installs happened and doctor judged them; the environments are gone.
  EXPECT_NE(checked.err.find(" create --yes -p "), std::string::npos) << checked.err;
  EXPECT_NE(checked.err.find(" doctor -p "), std::string::npos) << checked.err;
  EXPECT_TRUE(fs::is_empty(machine / "work"));

  // A package whose dependency the channel names but cannot satisfy fails.
  write_text_file(machine / "too-new" / "recipe.yaml", noarch_recipe("too-new", "greeting >=2"));
  ASSERT_EQ(run_gpuenv({"build", (machine / "too-new").string(), "--output-dir", channel.string(), "-c",
                        "file://" + (machine / "empty").string(), "--override-channels"},
                       machine.env())
                .exit_code,
            0);
  ASSERT_EQ(run_gpuenv({"index", channel.string()}, machine.env()).exit_code, 0);
  const auto failed = run_gpuenv({"ci", "check-channel", channel.string(), "--gpu", "sm_80"}, machine.env());
  EXPECT_EQ(failed.exit_code, 1) << failed.err << failed.out;
  EXPECT_NE(failed.out.find("FAILED   noarch/too-new-1.0-"), std::string::npos) << failed.out;
  EXPECT_NE(failed.out.find("gpuenv create failed"), std::string::npos) << failed.out;
}

}  // namespace
