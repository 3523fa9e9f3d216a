// `gpuenv build DIR` over a directory of recipes (a whole repository), as a
// maintainer runs it: the recipes build in the order their requirements on
// each other's packages need, into one output channel; a re-run skips what
// the channel has (and is quick), a re-run after a failure starts where it
// stopped, a cycle is refused naming the recipes in it. No network: noarch
// recipes and an empty local channel.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::write_text_file;
using json = nlohmann::json;

// A noarch: generic recipe `name` whose host (and run) needs `needs`; its
// script fails while the file `fail_while` exists, when one is given.
std::string recipe_text(const std::string& name, const std::vector<std::string>& needs,
                        const std::string& fail_while = "") {
  std::string text = "package:\n  name: " + name + "\n  version: \"1.0\"\nbuild:\n  noarch: generic\n  script:\n";
  if (!fail_while.empty()) text += "    - test ! -e " + fail_while + "\n";
  text += "    - mkdir -p \"$PREFIX/share/" + name + "\"\n";
  text += "    - echo " + name + " > \"$PREFIX/share/" + name + "/name.txt\"\n";
  if (!needs.empty()) {
    text += "requirements:\n  host:\n";
    for (const auto& need : needs) text += "    - " + need + "\n";
    text += "  run:\n";
    for (const auto& need : needs) text += "    - " + need + "\n";
  }
  return text;
}

class BuildRepositoryCli : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* subdir : {"noarch", "linux-64"}) {
      write_text_file(machine / "channel" / subdir / "repodata.json",
                      std::string(R"({"info": {"subdir": ")") + subdir + R"("}, "packages": {}, "packages.conda": {}})");
    }
  }

  // The directory listing gives a-app, b-base, c-zero; they build the other way round.
  void write_chain(const std::string& fail_while = "") const {
    write_text_file(repository() / "a-app/recipe.yaml", recipe_text("app", {"base"}));
    write_text_file(repository() / "b-base/recipe.yaml", recipe_text("base", {"zero"}, fail_while));
    write_text_file(repository() / "c-zero/recipe.yaml", recipe_text("zero", {}));
  }

  CommandOutput build(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"build",     repository().string(), "--output-dir", output().string(),
                                     "-c",        "file://" + (machine / "channel").string(),
                                     "--override-channels"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, machine.env());
  }

  fs::path repository() const { return machine / "recipes"; }
  fs::path output() const { return machine / "output"; }

  gpuenv::testing::SolveCliMachine machine;
};

std::size_t position_of(const std::string& text, const std::string& piece) {
  const auto at = text.find(piece);
  EXPECT_NE(at, std::string::npos) << "no \"" << piece << "\" in:\n" << text;
  return at;
}

TEST_F(BuildRepositoryCli, RecipesBuildInTheOrderTheyNeedEachOtherIntoOneChannel) {
  write_chain();
  const auto result = build();
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto& err = result.err;
  EXPECT_LT(position_of(err, "[1/3] recipe " + (repository() / "c-zero/recipe.yaml").string()),
            position_of(err, "[2/3] recipe " + (repository() / "b-base/recipe.yaml").string()));
  EXPECT_LT(position_of(err, "[2/3] recipe " + (repository() / "b-base/recipe.yaml").string()),
            position_of(err, "[3/3] recipe " + (repository() / "a-app/recipe.yaml").string()));
  EXPECT_NE(result.out.find("3 recipes: 3 built, 0 skipped"), std::string::npos) << result.out;
  // app's host environment took base (and with it zero) from the output channel.
  for (const char* name : {"app", "base", "zero"}) {
    bool found = false;
    for (const auto& entry : fs::directory_iterator(output() / "noarch")) {
      found = found || entry.path().filename().string().starts_with(std::string(name) + "-1.0-");
    }
    EXPECT_TRUE(found) << name << " is not in the output channel";
  }
}

TEST_F(BuildRepositoryCli, ARerunWithNothingChangedSkipsEverythingQuickly) {
  write_chain();
  ASSERT_EQ(build().exit_code, 0);
  const auto start = std::chrono::steady_clock::now();
  const auto again = build({"--json"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(again.exit_code, 0) << again.err << again.out;
  const auto report = json::parse(again.out);
  EXPECT_EQ(report["packages"].size(), 0u) << again.out;
  ASSERT_EQ(report["skipped"].size(), 3u) << again.out;
  EXPECT_EQ(report["skipped"][0]["name"], "zero");
  EXPECT_LT(seconds, 10.0);
  // --skip-existing none rebuilds.
  const auto rebuilt = build({"--skip-existing=none"});
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_NE(rebuilt.out.find("3 recipes: 3 built, 0 skipped"), std::string::npos) << rebuilt.out;
}

TEST_F(BuildRepositoryCli, ARerunAfterAFailureStartsWhereItStopped) {
  const auto marker = machine / "break-base";
  write_text_file(marker, "");
  write_chain(marker.string());
  const auto failed = build();
  ASSERT_EQ(failed.exit_code, 1) << failed.err << failed.out;
  EXPECT_NE(failed.out.find("3 recipes: 1 built, 0 skipped (all in the output channel), 1 failed, 1 not built"),
            std::string::npos)
      << failed.out;
  fs::remove(marker);
  const auto resumed = build();
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err << resumed.out;
  EXPECT_NE(resumed.out.find("3 recipes: 2 built, 1 skipped"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.err.find("skipping zero-1.0-"), std::string::npos) << resumed.err;
}

TEST_F(BuildRepositoryCli, ACycleIsRefusedNamingTheRecipesInItAndNothingIsBuilt) {
  write_text_file(repository() / "pip/recipe.yaml", recipe_text("pip", {"python"}));
  write_text_file(repository() / "python/recipe.yaml", recipe_text("python", {"pip"}));
  write_text_file(repository() / "zlib/recipe.yaml", recipe_text("zlib", {}));
  const auto result = build();
  ASSERT_EQ(result.exit_code, 1) << result.err << result.out;
  EXPECT_NE(result.err.find("cycle"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find((repository() / "pip/recipe.yaml").string() + " needs python"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find((repository() / "python/recipe.yaml").string() + " needs pip"), std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(output() / "noarch")) << "nothing may be built before the order is known";
}

// --source-for RECIPE=PATH: one recipe of the repository built from a local
// archive (Debian's repacked .orig, say) instead of its unreachable url, in
// the repository's order like the rest.
TEST_F(BuildRepositoryCli, SourceForGivesOneRecipeItsSourceWithinTheRepositoryBuild) {
  write_text_file(repository() / "a-app/recipe.yaml", recipe_text("app", {"zero"}));
  write_text_file(repository() / "z-zero/recipe.yaml", R"(package:
  name: zero
  version: "1.0"
source:
  url: http://127.0.0.1:9/zero-1.0.tar.gz
  sha256: 0000000000000000000000000000000000000000000000000000000000000000
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/zero" && cp message.txt "$PREFIX/share/zero/"
)");
  write_text_file(machine / "zero-src/message.txt", "from the local source\n");
  const auto result = build({"--source-for", "z-zero=" + (machine / "zero-src").string()});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("2 recipes: 2 built"), std::string::npos) << result.out;
  const auto wrong = build({"--source-for", "nonesuch=" + (machine / "zero-src").string()});
  EXPECT_EQ(wrong.exit_code, 2) << wrong.err;
  EXPECT_NE(wrong.err.find("does not name a recipe being built"), std::string::npos) << wrong.err;
}

TEST_F(BuildRepositoryCli, SourceOverridesAreRefusedForSeveralRecipes) {
  write_chain();
  write_text_file(machine / "src/file.txt", "x");
  const auto result = build({"--source", (machine / "src").string()});
  EXPECT_EQ(result.exit_code, 2) << result.err << result.out;
  EXPECT_NE(result.err.find("3 recipes were given"), std::string::npos) << result.err;
}

}  // namespace
