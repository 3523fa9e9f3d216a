// One rendered variant into one .conda, end to end through the library:
// sources, build and host environments (a local channel), the script with
// the variables a recipe expects, the new files of the host prefix with
// their prefix placeholders, info/, reproducible bytes, and failures that
// leave no package behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gpuenv/builder/build_recipe.hpp"
#include "gpuenv/builder/build_variant.hpp"
#include "gpuenv/builder/work_directory.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/recipe/render.hpp"
#include "gpuenv/util/environment.hpp"
#include "support/package_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::build::BuildErrorKind;
using gpuenv::testing::read_file;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;
using json = nlohmann::json;

class RecordingObserver : public gpuenv::build::BuildObserver {
 public:
  void step(std::string_view message) override { steps += std::string(message) + "\n"; }
  void script_output(std::string_view piece) override { output += piece; }
  std::string steps;
  std::string output;
};

const char* const noarch_recipe = R"(package:
  name: greeting
  version: "1.2"
source:
  path: project
build:
  number: 3
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/greeting" "$PREFIX/bin"
    - cp message.txt "$PREFIX/share/greeting/message.txt"
    - echo "installed in $PREFIX" > "$PREFIX/share/greeting/where.txt"
    - printf '%s\n' "$PKG_NAME" "$PKG_VERSION" "$PKG_BUILDNUM" "$PKG_HASH" "$target_platform" > "$PREFIX/share/greeting/env.txt"
    - printf '%s\n' "$SRC_DIR" "$RECIPE_DIR" "$BUILD_PREFIX" "$CPU_COUNT" >> "$PREFIX/share/greeting/env.txt"
    - 'printf "%s\n" "$PATH" | cut -d: -f1-2 >> "$PREFIX/share/greeting/env.txt"'
    - ln -s ../share/greeting/message.txt "$PREFIX/bin/greeting-message"
    - echo "script ran"
requirements:
  run:
    - python >=3.8
  run_exports:
    - greeting >=1.2
about:
  license: MIT
  summary: A greeting
)";

class BuildVariant : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text_file(dir / "channel/noarch/repodata.json",
                    R"({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}})");
    channel.add(gpuenv::testing::PackageBuilder("hostlib", "2.0").file("include/hostlib.h", "#define HOSTLIB 2\n"));
    use_channels({"file://" + (dir / "channel").string()});
  }

  void use_channels(std::vector<std::string> channels) {
    gpuenv::environment::SettingsOverrides overrides;
    overrides.channels = std::move(channels);
    overrides.override_channels = true;
    auto loaded = gpuenv::environment::settings_from(
        {}, overrides,
        gpuenv::util::fixed_environment({{"HOME", (dir / "home").string()},
                                         {"GPUENV_ROOT_PREFIX", (dir / "root").string()},
                                         {"GPUENV_CACHE_DIR", (dir / "cache").string()},
                                         {"CONDA_OVERRIDE_CUDA", ""},
                                         {"CONDA_OVERRIDE_GLIBC", "2.36"}}));
    ASSERT_TRUE(loaded) << loaded.error().message;
    settings = std::move(*loaded);
  }

  fs::path write_recipe(const std::string& text) const {
    write_text_file(dir / "recipe/recipe.yaml", text);
    return dir / "recipe/recipe.yaml";
  }

  std::expected<gpuenv::build::BuiltPackage, gpuenv::build::BuildError> build(const fs::path& recipe_file) {
    gpuenv::recipe::RenderRequest render;
    render.target_platform = render.build_platform = "linux-64";
    auto rendered = gpuenv::recipe::render_recipe_file(recipe_file, render);
    EXPECT_TRUE(rendered) << rendered.error().message;
    EXPECT_EQ(rendered->variants.size(), 1u);
    gpuenv::build::BuildRequest request;
    request.recipe_file = recipe_file;
    request.recipe_text = read_file(recipe_file);
    request.output_dir = dir / "output";
    request.settings = &settings;
    request.build_platform = "linux-64";
    request.timestamp = 1700000000;
    request.zstd_level = 3;
    return gpuenv::build::build_variant(rendered->variants.front(), request, observer);
  }

  gpuenv::build::RecipeBuildRequest recipe_build_request() const {
    gpuenv::build::RecipeBuildRequest request;
    request.render.target_platform = request.render.build_platform = "linux-64";
    request.output_dir = dir / "output";
    request.settings = &settings;
    request.timestamp = 1700000000;
    return request;
  }

  fs::path extracted(const fs::path& package) const {
    const auto target = dir / ("extracted-" + package.stem().string());
    gpuenv::package::extract_package(package, target);
    return target;
  }

  TempDirectory dir;
  gpuenv::testing::ChannelBuilder channel{dir / "channel", "file://" + (dir / "channel").string()};
  gpuenv::environment::Settings settings;
  RecordingObserver observer;
};

json entry_for(const json& paths, const std::string& path) {
  for (const auto& entry : paths["paths"]) {
    if (entry["_path"] == path) return entry;
  }
  return nullptr;
}

TEST_F(BuildVariant, NoarchPackageHoldsWhatTheScriptInstalled) {
  write_text_file(dir / "recipe/project/message.txt", "hello\n");
  const auto built = build(write_recipe(noarch_recipe));
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.steps << observer.output;
  EXPECT_EQ(built->package.parent_path(), dir / "output/noarch");
  EXPECT_EQ(built->package.filename().string().substr(0, 14), "greeting-1.2-h");
  EXPECT_EQ(built->files, 4u);
  EXPECT_EQ(built->prefix_files, 2u);  // where.txt, and env.txt through $PATH
  EXPECT_NE(observer.output.find("script ran"), std::string::npos) << observer.output;
  EXPECT_NE(read_file(built->log_file).find("script ran"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "output/bld" / built->package.stem()));  // the work directory is gone

  const auto root = extracted(built->package);
  const auto index = json::parse(read_file(root / "info/index.json"));
  EXPECT_EQ(index["name"], "greeting");
  EXPECT_EQ(index["version"], "1.2");
  EXPECT_EQ(index["build_number"], 3);
  EXPECT_EQ(index["build"].get<std::string>() + ".conda", built->package.filename().string().substr(13));
  EXPECT_EQ(index["noarch"], "generic");
  EXPECT_EQ(index["subdir"], "noarch");
  EXPECT_EQ(index["depends"], json::array({"python >=3.8"}));
  EXPECT_EQ(index["license"], "MIT");
  EXPECT_EQ(index["timestamp"], 1700000000000LL);
  EXPECT_FALSE(index.contains("arch"));  // as rattler-build writes a noarch package's
  EXPECT_FALSE(index.contains("platform"));
  EXPECT_EQ(json::parse(read_file(root / "info/run_exports.json")), json({{"weak", {"greeting >=1.2"}}}));
  EXPECT_EQ(json::parse(read_file(root / "info/about.json"))["summary"], "A greeting");
  EXPECT_EQ(read_file(root / "info/recipe/recipe.yaml"), noarch_recipe);
  EXPECT_NE(read_file(root / "info/recipe/variant_config.yaml").find("target_platform: \"noarch\""), std::string::npos);
  EXPECT_FALSE(json::parse(read_file(root / "info/hash_input.json")).is_discarded());
  EXPECT_EQ(read_file(root / "info/files"),
            "bin/greeting-message\nshare/greeting/env.txt\nshare/greeting/message.txt\nshare/greeting/where.txt\n");

  const auto paths = json::parse(read_file(root / "info/paths.json"));
  const auto where = entry_for(paths, "share/greeting/where.txt");
  ASSERT_FALSE(where.is_null()) << paths.dump(2);
  const std::string placeholder = where["prefix_placeholder"];
  EXPECT_EQ(where["file_mode"], "text");
  EXPECT_EQ(placeholder.size(), 255u);  // room for any install prefix
  EXPECT_EQ(read_file(root / "share/greeting/where.txt"), "installed in " + placeholder + "\n");
  EXPECT_FALSE(entry_for(paths, "share/greeting/message.txt").contains("prefix_placeholder"));
  EXPECT_EQ(entry_for(paths, "bin/greeting-message")["path_type"], "softlink");
  EXPECT_EQ(fs::read_symlink(root / "bin/greeting-message"), "../share/greeting/message.txt");
  EXPECT_EQ(read_file(root / "share/greeting/message.txt"), "hello\n");

  // The script's environment, one variable a line.
  std::vector<std::string> env;
  for (std::istringstream lines(read_file(root / "share/greeting/env.txt")); !lines.eof();) {
    std::string line;
    if (std::getline(lines, line)) env.push_back(line);
  }
  // The work directory is under the build root, whatever the output directory (work_directory.hpp).
  const auto root_dir = gpuenv::build::build_root(gpuenv::util::EnvLookup{});
  ASSERT_TRUE(root_dir);
  const auto work = (*root_dir / built->package.stem()).string();
  ASSERT_EQ(env.size(), 10u);
  EXPECT_EQ(env[0], "greeting");
  EXPECT_EQ(env[1], "1.2");
  EXPECT_EQ(env[2], "3");
  EXPECT_EQ(env[3], "h" + index["build"].get<std::string>().substr(1, 7));
  EXPECT_EQ(env[4], "noarch");
  EXPECT_EQ(env[5], work + "/work");
  EXPECT_EQ(env[6], (dir / "recipe").string());
  EXPECT_EQ(env[7], work + "/build_env");
  EXPECT_GE(std::stoi(env[8]), 1);
  EXPECT_EQ(env[9], work + "/build_env/bin:" + placeholder + "/bin");
  // The listing the entry says is what the package holds.
  EXPECT_EQ(where["sha256"], gpuenv::package::hash_file(root / "share/greeting/where.txt", true, false).sha256);
}

TEST_F(BuildVariant, BuildingTwiceGivesTheSameBytes) {
  write_text_file(dir / "recipe/project/message.txt", "hello\n");
  const auto recipe = write_recipe(noarch_recipe);
  const auto first = build(recipe);
  ASSERT_TRUE(first) << first.error().message;
  const auto bytes = read_file(first->package);
  const auto second = build(recipe);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->package, first->package);
  EXPECT_TRUE(read_file(second->package) == bytes) << "the two builds differ";
}

TEST_F(BuildVariant, CLibraryWithHostPackageAndTheMachinesCompiler) {
  write_text_file(dir / "recipe/src/demo.c",
                  "#include <hostlib.h>\nint demo_answer(void) { return 40 + HOSTLIB; }\n");
  write_text_file(dir / "recipe/src/demo.h", "int demo_answer(void);\n");
  const auto built = build(write_recipe(R"(package:
  name: libdemo
  version: "0.1"
source:
  path: src
build:
  script:
    - mkdir -p "$PREFIX/lib" "$PREFIX/include"
    - $CC -shared -fPIC -I"$PREFIX/include" -o "$PREFIX/lib/libdemo.so" demo.c
    - cp demo.h "$PREFIX/include/"
    # As conda-forge's compiler activation sets them (CuPy's build reads
    # them when CONDA_OVERRIDE_CUDA is set): the build machine's compiler
    # and triplet, whose binutils are $BUILD-ar and friends.
    - test "$CC_FOR_BUILD" = "$CC" && test "$HOST" = "$BUILD"
    - test "$BUILD" = "`$CC -dumpmachine`" && command -v "$BUILD-ar"
requirements:
  build:
    - ${{ compiler('c') }}
  host:
    - hostlib
)"));
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.steps << observer.output;
  EXPECT_TRUE(built->used_machine_compilers);
  EXPECT_NE(observer.steps.find("the channels do not provide gcc_linux-64; using this machine's"), std::string::npos)
      << observer.steps;
  EXPECT_EQ(built->package.parent_path(), dir / "output/linux-64");
  const auto root = extracted(built->package);
  // The host package's header is not the build's: only new files are packaged.
  EXPECT_EQ(read_file(root / "info/files"), "include/demo.h\nlib/libdemo.so\n");
  const auto index = json::parse(read_file(root / "info/index.json"));
  EXPECT_EQ(index["subdir"], "linux-64");
  EXPECT_EQ(index["arch"], "x86_64");
  EXPECT_EQ(index["platform"], "linux");
  EXPECT_FALSE(index.contains("noarch"));
  EXPECT_EQ(read_file(root / "lib/libdemo.so").substr(1, 3), "ELF");
}

TEST_F(BuildVariant, FailingScriptFailsWithTheLogsTailAndLeavesNoPackage) {
  write_text_file(dir / "recipe/project/message.txt", "hello\n");
  const auto recipe = write_recipe(noarch_recipe);
  const auto good = build(recipe);
  ASSERT_TRUE(good) << good.error().message;
  ASSERT_TRUE(fs::exists(good->package));
  std::string failing = noarch_recipe;
  const std::string last_line = "    - echo \"script ran\"";
  failing.replace(failing.find(last_line), last_line.size(), "    - echo \"about to fail\"\n    - exit 3");
  write_recipe(failing);
  const auto built = build(recipe);
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().kind, BuildErrorKind::script);
  EXPECT_NE(built.error().message.find("exit status 3"), std::string::npos) << built.error().message;
  EXPECT_NE(built.error().message.find("about to fail"), std::string::npos) << built.error().message;
  EXPECT_NE(built.error().message.find(".log"), std::string::npos) << built.error().message;
  EXPECT_FALSE(fs::exists(good->package));
}

// A recipe's own git calls (a configure script reading `git describe`, as
// UCX's does) must not find the repository the output directory happens to
// sit in: that gave a package the revision of gpuenv's own checkout.
TEST_F(BuildVariant, TheBuildScriptDoesNotSeeAGitRepositoryAroundTheWorkDirectory) {
  ASSERT_EQ(std::system(("git init -q " + gpuenv::testing::shell_quote(dir.path().string())).c_str()), 0);
  const auto recipe = write_recipe(R"(package:
  name: git-probe
  version: "1.0"
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/git-probe"
    - if top=$(git rev-parse --show-toplevel 2>/dev/null); then echo "inside $top"; else echo outside; fi > "$PREFIX/share/git-probe/where.txt"
)");
  const auto built = build(recipe);
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_EQ(read_file(extracted(built->package) / "share/git-probe/where.txt"), "outside\n");
}

TEST_F(BuildVariant, HostRequirementNoChannelHasIsAnEnvironmentError) {
  write_text_file(dir / "recipe/project/message.txt", "hello\n");
  std::string recipe = noarch_recipe;
  recipe.replace(recipe.find("requirements:\n"), 14, "requirements:\n  host:\n    - no-such-package\n");
  const auto built = build(write_recipe(recipe));
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().kind, BuildErrorKind::environment);
  EXPECT_NE(built.error().message.find("host environment"), std::string::npos) << built.error().message;
  EXPECT_NE(built.error().message.find("no-such-package"), std::string::npos) << built.error().message;
}

}  // namespace

namespace {

TEST_F(BuildVariant, BinaryFilesAndPrefixDetectionSettings) {
  const auto built = build(write_recipe(R"(package:
  name: blobs
  version: "1.0"
build:
  prefix_detection:
    ignore:
      - share/ignored.txt
    force_file_type:
      binary:
        - share/forced.txt
  script:
    - mkdir -p "$PREFIX/lib" "$PREFIX/share"
    - printf 'head\0%s\0tail' "$PREFIX" > "$PREFIX/lib/blob.bin"
    - echo "$PREFIX" > "$PREFIX/share/ignored.txt"
    - echo "$PREFIX" > "$PREFIX/share/forced.txt"
)"));
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.output;
  const auto paths = json::parse(read_file(extracted(built->package) / "info/paths.json"));
  EXPECT_EQ(entry_for(paths, "lib/blob.bin")["file_mode"], "binary");
  EXPECT_EQ(entry_for(paths, "share/forced.txt")["file_mode"], "binary");
  EXPECT_FALSE(entry_for(paths, "share/ignored.txt").contains("prefix_placeholder"));
}

// A package built here exports run requirements to the packages built
// against it, through the output directory indexed as a channel.
const char* const exporting_recipe = R"(package:
  name: apkg
  version: "1.5"
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share" && echo a > "$PREFIX/share/apkg.txt"
requirements:
  run_exports:
    weak:
      - apkg >=1.0,<2
    noarch:
      - ${{ pin_subpackage('apkg', upper_bound='x.x') }}
)";

const char* const importing_recipe = R"(package:
  name: bpkg
  version: "0.1"
build:
  script:
    - mkdir -p "$PREFIX/share" && echo b > "$PREFIX/share/bpkg.txt"
requirements:
  host:
    - apkg
    - hostlib
  run:
    - ${{ pin_compatible('hostlib', upper_bound='x.x') }}
  run_exports:
    - ${{ pin_subpackage('bpkg', exact=True) }}
)";

TEST_F(BuildVariant, HostPackagesRunExportsAndPinsReachIndexJson) {
  auto request = recipe_build_request();
  const auto exporter = gpuenv::build::build_recipe(write_recipe(exporting_recipe), request, observer);
  ASSERT_FALSE(exporter.error) << exporter.error->message << "\n" << observer.steps;
  const auto exported = json::parse(read_file(extracted(exporter.built[0].package.package) / "info/run_exports.json"));
  EXPECT_EQ(exported, json({{"weak", {"apkg >=1.0,<2"}}, {"noarch", {"apkg >=1.5,<1.6.0a0"}}}));

  use_channels({"file://" + (dir / "output").string(), "file://" + (dir / "channel").string()});
  const auto built = build(write_recipe(importing_recipe));
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.steps;
  const auto root = extracted(built->package);
  const auto index = json::parse(read_file(root / "info/index.json"));
  EXPECT_EQ(index["depends"], json::array({"hostlib >=2.0,<2.1.0a0", "apkg >=1.0,<2"}));
  EXPECT_EQ(json::parse(read_file(root / "info/run_exports.json")),
            json({{"weak", {"bpkg ==0.1 " + index["build"].get<std::string>()}}}));

  std::string ignoring = importing_recipe;
  ignoring += "  ignore_run_exports:\n    by_name:\n      - apkg\n";
  const auto without = build(write_recipe(ignoring));
  ASSERT_TRUE(without) << without.error().message;
  EXPECT_EQ(json::parse(read_file(extracted(without->package) / "info/index.json"))["depends"],
            json::array({"hostlib >=2.0,<2.1.0a0"}));
}

TEST_F(BuildVariant, StrongExportsOfTheBuildEnvironmentJoinHostAndRun) {
  channel.add(gpuenv::testing::PackageBuilder("toolpkg", "1.0")
                  .noarch_generic()
                  .info_file("info/run_exports.json", R"({"strong": ["hostlib >=2"], "weak": ["toolpkg"]})"));
  const auto built = build(write_recipe(R"(package:
  name: tooled
  version: "1.0"
build:
  script:
    - test -f "$PREFIX/include/hostlib.h"
    - mkdir -p "$PREFIX/share" && echo t > "$PREFIX/share/tooled.txt"
requirements:
  build:
    - toolpkg
)"));
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.steps << observer.output;
  EXPECT_EQ(json::parse(read_file(extracted(built->package) / "info/index.json"))["depends"],
            json::array({"hostlib >=2"}));
}

// conda-build's pin_run_as_build from the variant file next to the recipe.
TEST_F(BuildVariant, PinRunAsBuildPinsABareRunRequirementToTheHostsVersion) {
  write_text_file(dir / "recipe/variants.yaml", "pin_run_as_build:\n  hostlib:\n    max_pin: x.x\n");
  gpuenv::build::RecipeBuildRequest request;
  request.render.target_platform = request.render.build_platform = "linux-64";
  request.output_dir = dir / "output";
  request.settings = &settings;
  const auto result = gpuenv::build::build_recipe(write_recipe(R"(package:
  name: pinnedrun
  version: "1.0"
build:
  script:
    - mkdir -p "$PREFIX/share" && echo p > "$PREFIX/share/pinnedrun.txt"
requirements:
  host:
    - hostlib
  run:
    - hostlib
)"),
                                                  request, observer);
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(json::parse(read_file(extracted(result.built[0].package.package) / "info/index.json"))["depends"],
            json::array({"hostlib >=2.0,<2.1.0a0"}));
}

TEST_F(BuildVariant, MalformedRunExportsOfAHostPackageNamesThePackage) {
  channel.add(gpuenv::testing::PackageBuilder("badexports", "1.0").info_file("info/run_exports.json", "{\"weak\": 7}"));
  const auto built = build(write_recipe(R"(package:
  name: victim
  version: "1.0"
requirements:
  host:
    - badexports
)"));
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().kind, BuildErrorKind::environment);
  EXPECT_NE(built.error().message.find("info/run_exports.json of badexports 1.0 0"), std::string::npos)
      << built.error().message;
}

TEST_F(BuildVariant, PinCompatibleOfAPackageNotInTheHostEnvironmentIsARecipeError) {
  const auto built = build(write_recipe(R"(package:
  name: pinned
  version: "1.0"
requirements:
  run:
    - ${{ pin_compatible('hostlib') }}
)"));
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().kind, BuildErrorKind::recipe);
  EXPECT_NE(built.error().message.find("hostlib is not in the host environment"), std::string::npos)
      << built.error().message;
}

}  // namespace

namespace {

// build_recipe: every variant of a recipe file, the output directory indexed
// after each package; a malformed override is told apart (a usage mistake).
TEST_F(BuildVariant, LicenseFilesLandInInfoLicenses) {
  write_text_file(dir / "recipe/project/message.txt", "hello\n");
  write_text_file(dir / "recipe/project/COPYING", "source's license\n");
  write_text_file(dir / "recipe/LICENSE.recipe", "recipe's license\n");
  std::string recipe = noarch_recipe;
  recipe.replace(recipe.find("  license: MIT\n"), 15,
                 "  license: MIT\n  license_file:\n    - COPYING\n    - LICENSE.recipe\n");
  const auto built = build(write_recipe(recipe));
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.output;
  const auto root = extracted(built->package);
  EXPECT_EQ(read_file(root / "info/licenses/COPYING"), "source's license\n");
  EXPECT_EQ(read_file(root / "info/licenses/LICENSE.recipe"), "recipe's license\n");

  recipe.replace(recipe.find("    - COPYING\n"), 14, "    - MISSING\n");
  const auto failed = build(write_recipe(recipe));
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("'MISSING' matches no file"), std::string::npos) << failed.error().message;
  EXPECT_FALSE(fs::exists(built->package));
}

// rattler-build renders script lines at build time: context, variant,
// selectors and the script's variables (PYTHON is $PREFIX/bin/python).
TEST_F(BuildVariant, ScriptLinesAreRenderedWithContextVariantAndScriptVariables) {
  const auto recipe_file = write_recipe(R"(context:
  greeting: hi
package:
  name: rendered-script
  version: "2.5"
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share"
    - echo "${{ greeting }}|${{ target_platform }}|${{ 'unixy' if unix }}|${{ PKG_VERSION }}" > "$PREFIX/share/out.txt"
    - test "${{ PYTHON }}" = "$PREFIX/bin/python" && test "${{ PREFIX }}" = "$PREFIX" && echo same >> "$PREFIX/share/out.txt"
)");
  const auto built = build(recipe_file);
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.output;
  const auto root = extracted(built->package);
  EXPECT_EQ(read_file(root / "share/out.txt"), "hi|noarch|unixy|2.5\nsame\n");

  // A name nothing defines is an error naming the line, not an empty word.
  const auto failed = build(write_recipe(R"(package:
  name: rendered-script
  version: "2.5"
build:
  script:
    - echo ${{ PYTHNO }}
)"));
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("the build script line 1 'echo ${{ PYTHNO }}' cannot be rendered"),
            std::string::npos)
      << failed.error().message;
}

TEST_F(BuildVariant, BuildRecipeBuildsAndIndexesTheOutputDirectory) {
  write_text_file(dir / "recipe/project/message.txt", "hello\n");
  const auto recipe_file = write_recipe(noarch_recipe);
  auto request = recipe_build_request();
  auto result = gpuenv::build::build_recipe(recipe_file, request, observer);
  ASSERT_FALSE(result.error) << result.error->message << "\n" << observer.output;
  ASSERT_EQ(result.built.size(), 1u);
  EXPECT_EQ(result.built[0].name, "greeting");
  const auto repodata = json::parse(read_file(dir / "output/noarch/repodata.json"));
  EXPECT_TRUE(repodata["packages.conda"].contains(result.built[0].package.package.filename().string()))
      << repodata.dump(1);

  request.render.overrides = {"no-equals-sign"};
  result = gpuenv::build::build_recipe(recipe_file, request, observer);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->kind, gpuenv::build::BuildErrorKind::variant_override);
  EXPECT_TRUE(result.built.empty());
}

TEST_F(BuildVariant, BuildRecipeLeavesOutAnOutputThatSkipsItself) {
  // The skip is the output's own, not the recipe's: the reader merges the
  // top-level build into each output's, so that is where it is read.
  const auto recipe_file = write_recipe(R"(recipe:
  name: pair
  version: "1.0"
build:
  noarch: generic
outputs:
  - package:
      name: pair-kept
    build:
      script:
        - mkdir -p "$PREFIX/share" && echo kept > "$PREFIX/share/pair-kept.txt"
  - package:
      name: pair-skipped
    build:
      skip: true
      script:
        - mkdir -p "$PREFIX/share" && echo skipped > "$PREFIX/share/pair-skipped.txt"
about:
  license: MIT
)");
  auto request = recipe_build_request();
  auto result = gpuenv::build::build_recipe(recipe_file, request, observer);
  ASSERT_FALSE(result.error) << result.error->message << "\n" << observer.output;
  ASSERT_EQ(result.built.size(), 1u);
  EXPECT_EQ(result.built[0].name, "pair-kept");
}

}  // namespace
