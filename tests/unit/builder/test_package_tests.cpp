// After the build: the output directory as a channel (a recipe can use what
// an earlier build put there), the package's tests carried in
// info/tests/ and run in fresh environments from a staging channel, and a
// failing test keeping the package out of the output channel.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "gpuenv/builder/build_recipe.hpp"
#include "gpuenv/builder/package_contents_check.hpp"
#include "gpuenv/builder/package_tests.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/util/environment.hpp"
#include "support/package_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"
#include "build_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::build::BuildErrorKind;
using gpuenv::testing::read_file;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;
using json = nlohmann::json;

class PackageTests : public ::testing::Test {
 protected:
  void SetUp() override {
    channel.add(gpuenv::testing::PackageBuilder("testtool", "1.0")
                    .noarch_generic()
                    .file("bin/testtool", "#!/bin/sh\necho \"testtool says $1\"\n", 0755));
    channel.add(gpuenv::testing::PackageBuilder("uses-greeting", "1.0").noarch_generic().depends({"greeting >=1"}));
    channel.add(gpuenv::testing::PackageBuilder("wants-old-greeting", "1.0").noarch_generic().depends({"greeting <1"}));
    // A downstream package whose own tests read what greeting installs.
    channel.add(gpuenv::testing::PackageBuilder("reads-greeting", "1.0")
                    .noarch_generic()
                    .depends({"greeting >=1"})
                    .info_file("info/tests/tests.yaml",
                               "- script:\n    - grep -q hello \"$PREFIX/share/greeting/message.txt\"\n"));
    auto loaded = gpuenv::testing::local_channel_settings(dir.path(), dir / "channel");
    ASSERT_TRUE(loaded) << loaded.error().message;
    settings = std::move(*loaded);
  }

  gpuenv::build::RecipeBuildResult build(const std::string& name, const std::string& recipe, bool run_tests = true) {
    write_text_file(dir / name / "recipe.yaml", recipe);
    gpuenv::build::RecipeBuildRequest request;
    request.render.target_platform = request.render.build_platform = "linux-64";
    request.output_dir = dir / "output";
    request.settings = &settings;
    request.timestamp = 1700000000;
    request.run_tests = run_tests;
    return gpuenv::build::build_recipe(dir / name / "recipe.yaml", request, observer);
  }

  json repodata(const std::string& subdir) const {
    return json::parse(read_file(dir / "output" / subdir / "repodata.json"));
  }

  TempDirectory dir;
  gpuenv::testing::ChannelBuilder channel{dir / "channel", "file://" + (dir / "channel").string()};
  gpuenv::environment::Settings settings;
  gpuenv::testing::RecordingBuildObserver observer;
};

const char* const greeting = R"(package:
  name: greeting
  version: "1.2"
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/greeting"
    - echo hello > "$PREFIX/share/greeting/message.txt"
)";

std::string with_tests(const std::string& recipe, const std::string& tests) { return recipe + "tests:\n" + tests; }

TEST_F(PackageTests, TheOutputDirectoryIsAChannelForLaterBuilds) {
  // A fresh output directory: nothing indexed yet, and nothing in it.
  const auto first = build("greeting", greeting);
  ASSERT_FALSE(first.error) << first.error->message << "\n" << observer.steps;
  const auto second = build("user", R"(package:
  name: greeting-user
  version: "0.1"
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/user"
    - cp "$PREFIX/share/greeting/message.txt" "$PREFIX/share/user/copied.txt"
requirements:
  host:
    - greeting 1.2.*
)");
  ASSERT_FALSE(second.error) << second.error->message << "\n" << observer.steps << observer.output;
  EXPECT_NE(observer.steps.find("greeting 1.2 " + first.built[0].build_string), std::string::npos) << observer.steps;
  EXPECT_TRUE(repodata("noarch")["packages.conda"].contains(second.built[0].package.package.filename().string()));
}

TEST_F(PackageTests, ScriptTestsRunInAnActivatedEnvironmentWithTheirFiles) {
  write_text_file(dir / "greeting/expected.txt", "hello\n");
  const auto fixed = build("greeting", with_tests(greeting, R"(  - script:
      - test "$PREFIX" = "$CONDA_PREFIX"
      - cmp "$PREFIX/share/greeting/message.txt" expected.txt
      - testtool "works"
      - echo "the test ran"
    requirements:
      run:
        - testtool
    files:
      recipe:
        - expected.txt
  - package_contents:
      files:
        - share/greeting/*.txt
)"));
  ASSERT_FALSE(fixed.error) << fixed.error->message << "\n" << observer.steps << observer.output;
  ASSERT_EQ(fixed.built.size(), 1u);
  EXPECT_EQ(fixed.built[0].package.tests, 2u);
  EXPECT_NE(observer.output.find("testtool says works"), std::string::npos) << observer.output;
  EXPECT_NE(read_file(fixed.built[0].package.log_file).find("the test ran"), std::string::npos);
  // The tests travel in the package.
  const auto root = dir / "extracted";
  gpuenv::package::extract_package(fixed.built[0].package.package, root);
  EXPECT_NE(read_file(root / "info/tests/tests.yaml").find("testtool"), std::string::npos);
  EXPECT_EQ(read_file(root / "info/tests/0/expected.txt"), "hello\n");
}

// As rattler-build renders the whole recipe: `${{ }}` in a test script is
// the recipe's context and the variant, written into the package rendered.
TEST_F(PackageTests, TemplatesInTestScriptsAreRenderedIntoThePackage) {
  const std::string recipe = std::string("context:\n  word: hello\n") + greeting;
  const auto result = build("greeting", with_tests(recipe, R"(  - script:
      - grep -q ${{ word }} "$PREFIX/share/greeting/message.txt"
      - test "${{ PKG_VERSION }}" = 1.2
)"));
  ASSERT_FALSE(result.error) << result.error->message << "\n" << observer.steps << observer.output;
  const auto root = dir / "extracted";
  gpuenv::package::extract_package(result.built[0].package.package, root);
  const auto tests = read_file(root / "info/tests/tests.yaml");
  EXPECT_NE(tests.find("grep -q hello"), std::string::npos) << tests;
  EXPECT_EQ(tests.find("${{"), std::string::npos) << tests;
  // The build's paths are not the test's: naming one is an error.
  const auto wrong = build("greeting", with_tests(greeting, "  - script:\n      - ls ${{ SRC_DIR }}\n"));
  ASSERT_TRUE(wrong.error);
  EXPECT_NE(wrong.error->message.find("test 1's script"), std::string::npos) << wrong.error->message;
}

TEST_F(PackageTests, AFailingTestFailsTheBuildAndKeepsThePackageOutOfTheChannel) {
  const auto result = build("greeting", with_tests(greeting, R"(  - script:
      - echo "checking the message"
      - grep -q goodbye "$PREFIX/share/greeting/message.txt"
)"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->kind, BuildErrorKind::test);
  EXPECT_NE(result.error->message.find("test 1 of 1 (script)"), std::string::npos) << result.error->message;
  EXPECT_NE(result.error->message.find("exited with status 1"), std::string::npos) << result.error->message;
  EXPECT_NE(result.error->message.find("checking the message"), std::string::npos) << result.error->message;
  EXPECT_NE(result.error->message.find("stays out of the output channel"), std::string::npos);
  EXPECT_TRUE(result.built.empty());
  EXPECT_TRUE(fs::is_empty(dir / "output/noarch") ||
              !fs::exists(dir / "output/noarch" / "greeting-1.2-hd2bd5a9_0.conda"));
  for (const auto& entry : fs::directory_iterator(dir / "output/noarch")) {
    EXPECT_NE(entry.path().extension(), ".conda") << entry.path();
  }
  EXPECT_TRUE(repodata("noarch")["packages.conda"].empty()) << repodata("noarch").dump(1);

  // --test skip: the same recipe is published untested.
  const auto skipped = build("greeting", with_tests(greeting, R"(  - script:
      - exit 1
)"), false);
  ASSERT_FALSE(skipped.error) << skipped.error->message;
  EXPECT_EQ(skipped.built[0].package.tests, 0u);
  EXPECT_TRUE(fs::exists(skipped.built[0].package.package));
}

TEST_F(PackageTests, PackageContentsFailuresNameWhatIsWrong) {
  const auto result = build("greeting", with_tests(greeting, R"(  - package_contents:
      files:
        exists:
          - share/greeting/message.txt
        not_exists:
          - "**/*.txt"
      bin:
        - greeting
)"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->kind, BuildErrorKind::test);
  EXPECT_NE(result.error->message.find("no file in the package matches bin: greeting"), std::string::npos)
      << result.error->message;
  EXPECT_NE(result.error->message.find("holds share/greeting/message.txt, which not_exists **/*.txt forbids"),
            std::string::npos)
      << result.error->message;
}

TEST(PackageContentsCheck, EveryKindOfExpectation) {
  gpuenv::recipe::PackageContentsTest test;
  test.files = {"share/*.txt"};
  test.lib = {"demo", "other.so.1"};
  test.include = {"demo/*.h"};
  test.site_packages = {"demo.sub"};
  test.bin = {"demo"};
  const std::vector<std::string> paths = {"share/a.txt",       "lib/libdemo.so.1", "lib/other.so.1",
                                          "include/demo/a.h",  "bin/demo",
                                          "lib/python3.12/site-packages/demo/sub/__init__.py"};
  EXPECT_TRUE(gpuenv::build::package_contents_failures(test, paths, false).empty());
  // noarch: python puts modules under site-packages/.
  EXPECT_EQ(gpuenv::build::package_contents_failures(test, paths, true).size(), 1u);
  test.strict = true;
  auto extra = paths;
  extra.push_back("share/unlisted.dat");
  const auto failures = gpuenv::build::package_contents_failures(test, extra, false);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("share/unlisted.dat"), std::string::npos);
}

// As conda-build's and rattler-build's downstream tests: the downstream
// package installed with the new one, its own tests run against it.
TEST_F(PackageTests, DownstreamPackagesRunTheirOwnTestsWithThePackage) {
  const auto good = build("greeting", with_tests(greeting, "  - downstream: reads-greeting\n"));
  ASSERT_FALSE(good.error) << good.error->message << "\n" << observer.steps;
  EXPECT_NE(observer.steps.find("the downstream package reads-greeting passed its 1 test(s)"), std::string::npos)
      << observer.steps;

  // A greeting that no longer installs the message breaks reads-greeting:
  // the downstream test fails the build, and the package stays out.
  std::string silent = greeting;
  silent.replace(silent.find("    - echo hello"), std::string::npos, "    - touch \"$PREFIX/share/greeting/other.txt\"\n");
  const auto bad = build("greeting", with_tests(silent, "  - downstream: reads-greeting\n"));
  ASSERT_TRUE(bad.error) << observer.steps;
  EXPECT_EQ(bad.error->kind, BuildErrorKind::test);
  EXPECT_NE(bad.error->message.find("reads-greeting's tests failed with this package"), std::string::npos)
      << bad.error->message;
}

TEST_F(PackageTests, ADownstreamThatDoesNotFitThisVersionIsSkippedOneThatDoesNotExistFails) {
  // wants-old-greeting installs, with the older greeting only.
  channel.add(gpuenv::testing::PackageBuilder("greeting", "0.9").noarch_generic());
  const auto incompatible = build("greeting", with_tests(greeting, "  - downstream: wants-old-greeting\n"));
  ASSERT_FALSE(incompatible.error) << incompatible.error->message;
  EXPECT_NE(observer.warnings.find("skipped the downstream test of wants-old-greeting"), std::string::npos)
      << observer.warnings;
  const auto missing = build("greeting", with_tests(greeting, "  - downstream: no-such-package\n"));
  ASSERT_TRUE(missing.error);
  EXPECT_EQ(missing.error->kind, BuildErrorKind::test);
  EXPECT_NE(missing.error->message.find("cannot be installed from the channels at all"), std::string::npos)
      << missing.error->message;
}

TEST_F(PackageTests, APythonTestWithoutAPythonSaysSo) {
  channel.add(gpuenv::testing::PackageBuilder("python", "3.11.2").noarch_generic().file("share/python-readme", "no interpreter\n"));
  const auto result = build("greeting", with_tests(greeting, R"(  - python:
      imports:
        - greeting
      pip_check: false
)"));
  ASSERT_TRUE(result.error);
  EXPECT_NE(result.error->message.find("has no bin/python"), std::string::npos) << result.error->message;
}

TEST_F(PackageTests, TestPackageRerunsTheTestsOfABuiltPackage) {
  const auto result = build("greeting", with_tests(greeting, R"yaml(  - script:
      - echo "rerun $(cat "$PREFIX/share/greeting/message.txt")"
)yaml"));
  ASSERT_FALSE(result.error) << result.error->message;
  gpuenv::build::PackageTestRequest request;
  request.package_file = result.built[0].package.package;
  request.channel_dir = dir / "output";
  request.work_dir = dir / "retest";
  request.settings = &settings;
  request.build_platform = "linux-64";
  request.log_file = dir / "retest.log";
  observer.output.clear();
  const auto report = gpuenv::build::test_package(request, observer);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->tests, 1u);
  EXPECT_NE(observer.output.find("rerun hello"), std::string::npos) << observer.output;
  EXPECT_NE(read_file(dir / "retest.log").find("rerun hello"), std::string::npos);

  write_text_file(dir / "not-a-package.conda", "garbage");
  request.package_file = dir / "not-a-package.conda";
  const auto refused = gpuenv::build::test_package(request, observer);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("not-a-package.conda"), std::string::npos) << refused.error().message;
}

}  // namespace
