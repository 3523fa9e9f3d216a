// noarch: python packages as gpuenv builds them: site-packages/ and
// python-scripts/ layout, no bytecode, entry points in info/link.json and
// not in the package -- then installed by gpuenv's own installer into a test
// environment whose python is this machine's interpreter (/usr/bin/python3,
// made an environment's python the way a venv is: a symbolic link and
// pyvenv.cfg), where the python imports test and the entry point run for
// real.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "gpuenv/builder/build_recipe.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/util/environment.hpp"
#include "support/package_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"
#include "build_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::read_file;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;
using json = nlohmann::json;

constexpr const char* kMachinePython = "/usr/bin/python3";

// "3.11.2" from the machine's interpreter; empty when it has none.
std::string machine_python_version() {
  std::error_code error;
  if (!fs::exists(kMachinePython, error)) return {};
  const auto result = gpuenv::testing::run_program(kMachinePython, {"-c",
                                                    "import platform; print(platform.python_version())"});
  if (result.exit_code != 0) return {};
  auto version = result.out;
  while (!version.empty() && (version.back() == '\n' || version.back() == '\r')) version.pop_back();
  return version;
}

const char* const greet_recipe = R"(package:
  name: greet
  version: "1.0"
build:
  noarch: python
  python:
    entry_points:
      - greet = greet.cli:main
  script:
    # Python's locations, as conda-build and rattler-build set them when
    # python is in the host environment.
    - test "$SP_DIR" = "$PREFIX/lib/python3.11/site-packages" && test "$STDLIB_DIR/site-packages" = "$SP_DIR"
    - test "$PY3K" = 1 && test "$PYTHON" = "$PREFIX/bin/python" && test "$STDLIB_DIR" = "$PREFIX/lib/python$PY_VER"
    - SP="$SP_DIR"
    - mkdir -p "$SP/greet/__pycache__" "$PREFIX/bin"
    - printf 'def main():\n    print("hello from greet")\n' > "$SP/greet/cli.py"
    - touch "$SP/greet/__init__.py" "$SP/greet/__pycache__/cli.cpython-311.pyc" "$SP/greet/stale.pyc"
    - printf '#!/bin/sh\necho "greet-tool ran"\n' > "$PREFIX/bin/greet-tool"
    - chmod +x "$PREFIX/bin/greet-tool"
    - echo "a script the build left for the entry point" > "$PREFIX/bin/greet"
requirements:
  host:
    - python
  run:
    - python
tests:
  - python:
      imports:
        - greet
        - greet.cli
      pip_check: false
  - script:
      - greet
      - greet-tool
  - package_contents:
      site_packages:
        - greet.cli
      files:
        not_exists:
          - "**/*.pyc"
)";

TEST(NoarchPython, BuiltWithTheNoarchLayoutInstalledAndTestedWithARealInterpreter) {
  const auto version = machine_python_version();
  if (version.empty()) GTEST_SKIP() << kMachinePython << " is missing: the python test kind needs a real interpreter";
  const auto major_minor = version.substr(0, version.rfind('.'));
  TempDirectory dir;
  gpuenv::testing::ChannelBuilder channel{dir / "channel", "file://" + (dir / "channel").string()};
  channel.add(gpuenv::testing::PackageBuilder("python", version)
                  .subdir("linux-64")
                  .file("pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = " + version + "\n")
                  .file("lib/python" + major_minor + "/site-packages/README.txt", "site-packages\n")
                  .file("bin/.python-post-link.sh",
                        std::string("ln -s ") + kMachinePython + " \"$PREFIX/bin/python" + major_minor +
                            "\"\nln -s python" + major_minor + " \"$PREFIX/bin/python\"\n",
                        0755));
  write_text_file(dir / "channel/noarch/repodata.json",
                  R"({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}})");
  auto settings = gpuenv::testing::local_channel_settings(dir.path(), dir / "channel");
  ASSERT_TRUE(settings) << settings.error().message;

  std::string recipe = greet_recipe;
  recipe.replace(recipe.find("python3.11"), 10, "python" + major_minor);
  write_text_file(dir / "greet/recipe.yaml", recipe);
  gpuenv::build::RecipeBuildRequest request;
  request.render.target_platform = request.render.build_platform = "linux-64";
  request.output_dir = dir / "output";
  request.settings = &*settings;
  request.timestamp = 1700000000;
  gpuenv::testing::RecordingBuildObserver observer;
  const auto result = gpuenv::build::build_recipe(dir / "greet/recipe.yaml", request, observer);
  ASSERT_FALSE(result.error) << result.error->message << "\n" << observer.steps << observer.output;
  ASSERT_EQ(result.built.size(), 1u);
  EXPECT_EQ(result.built[0].package.tests, 3u);
  EXPECT_NE(observer.output.find("hello from greet"), std::string::npos) << observer.output;
  EXPECT_NE(observer.output.find("greet-tool ran"), std::string::npos) << observer.output;

  const auto root = dir / "extracted";
  gpuenv::package::extract_package(result.built[0].package.package, root);
  EXPECT_EQ(read_file(root / "info/files"),
            "python-scripts/greet-tool\nsite-packages/greet/__init__.py\nsite-packages/greet/cli.py\n");
  const auto link = json::parse(read_file(root / "info/link.json"));
  EXPECT_EQ(link["noarch"]["type"], "python");
  EXPECT_EQ(link["noarch"]["entry_points"], json::array({"greet = greet.cli:main"})) << link.dump(2);
  EXPECT_EQ(json::parse(read_file(root / "info/index.json"))["noarch"], "python");
}

}  // namespace
