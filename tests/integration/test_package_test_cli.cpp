// Tests after build and `gpuenv test`, as a user runs them: a recipe's
// script test runs before the package enters the output channel and a
// failing one keeps it out (exit 1, the JSON saying why); `--test skip`
// publishes untested; `gpuenv test PKG_FILE` re-runs the tests the package
// carries: 0 when they pass, 1 when one fails, 2 for a usage mistake.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::write_text_file;
using json = nlohmann::json;

std::string recipe_whose_test(const std::string& test_line) {
  return R"(package:
  name: tested
  version: "1.0"
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/tested"
    - echo "hello" > "$PREFIX/share/tested/message.txt"
tests:
  - script:
      - echo "running the test of tested"
      - )" + test_line + "\n";
}

class PackageTestCli : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* subdir : {"noarch", "linux-64"}) {
      write_text_file(machine / "channel" / subdir / "repodata.json",
                      std::string(R"({"info": {"subdir": ")") + subdir +
                          R"("}, "packages": {}, "packages.conda": {}})");
    }
  }

  std::vector<std::string> channel_args() const {
    return {"-c", "file://" + (machine / "channel").string(), "--override-channels"};
  }

  CommandOutput build(const std::string& test_line, std::vector<std::string> extra = {}) const {
    write_text_file(machine / "recipe/recipe.yaml", recipe_whose_test(test_line));
    std::vector<std::string> args = {"build", (machine / "recipe").string(), "--output-dir", output().string()};
    for (auto& arg : channel_args()) args.push_back(arg);
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, machine.env());
  }

  CommandOutput test(const std::string& package, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"test", package};
    for (auto& arg : channel_args()) args.push_back(arg);
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, machine.env());
  }

  std::vector<fs::path> published() const {
    std::vector<fs::path> packages;
    if (!fs::exists(output() / "noarch")) return packages;
    for (const auto& entry : fs::directory_iterator(output() / "noarch")) {
      if (entry.path().extension() == ".conda") packages.push_back(entry.path());
    }
    return packages;
  }

  fs::path output() const { return machine / "output"; }

  gpuenv::testing::SolveCliMachine machine;
};

TEST_F(PackageTestCli, PassingTestsPublishAndRerun) {
  const auto built = build("grep -q hello \"$PREFIX/share/tested/message.txt\"");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.err.find("running the test of tested"), std::string::npos) << built.err;
  ASSERT_EQ(published().size(), 1u);

  const auto again = test(published()[0].string());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("1 test(s) passed"), std::string::npos) << again.out;
  EXPECT_NE(again.err.find("running the test of tested"), std::string::npos) << again.err;

  const auto as_json = test(published()[0].string(), {"--json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const auto document = json::parse(as_json.out);
  EXPECT_EQ(document["success"], true);
  EXPECT_EQ(document["packages"][0]["tests"], 1);
}

TEST_F(PackageTestCli, AFailingTestKeepsThePackageOutAndFailsGpuenvTest) {
  const auto built = build("grep -q goodbye \"$PREFIX/share/tested/message.txt\"", {"--json"});
  EXPECT_EQ(built.exit_code, 1) << built.err;
  const auto document = json::parse(built.out);
  EXPECT_EQ(document["success"], false);
  EXPECT_NE(document["error"].get<std::string>().find("stays out of the output channel"), std::string::npos)
      << document.dump(2);
  EXPECT_TRUE(published().empty());

  // Published untested, the package's own tests still fail it.
  const auto skipped = build("grep -q goodbye \"$PREFIX/share/tested/message.txt\"", {"--test", "skip"});
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  ASSERT_EQ(published().size(), 1u);
  const auto failed = test(published()[0].string());
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.err.find("test 1 of 1 (script)"), std::string::npos) << failed.err;

  const auto no_test = build("exit 1", {"--no-test"});
  EXPECT_EQ(no_test.exit_code, 0) << no_test.err;
}

TEST_F(PackageTestCli, UsageMistakesExitWithTwo) {
  EXPECT_EQ(test((machine / "missing.conda").string()).exit_code, 2);
  EXPECT_EQ(run_gpuenv({"test"}, machine.env()).exit_code, 2);
  EXPECT_EQ(build("true", {"--test", "sometimes"}).exit_code, 2);
}

}  // namespace
