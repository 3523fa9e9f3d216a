// The ELF step of a real build: the script compiles a C shared library and
// an executable with the machine's gcc against a host package's library,
// with rpaths into the host prefix and the build machine; the package holds
// them relocated ($ORIGIN-relative, outside entries gone, the same bytes
// twice), and what they link is checked against the run requirements.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "gpuenv/builder/build_variant.hpp"
#include "gpuenv/cuda_binary/dynamic_linking.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/recipe/render.hpp"
#include "gpuenv/util/environment.hpp"
#include "build_test_support.hpp"
#include "support/package_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::read_file;
using gpuenv::testing::run_program;
using gpuenv::testing::write_text_file;

class LogObserver : public gpuenv::build::BuildObserver {
 public:
  void step(std::string_view message) override { steps += std::string(message) + "\n"; }
  std::string steps;
};

// `tool` links the package's own libown.so.1 and the host package's
// libhost.so.1; `dynamic_linking` and `run` vary per test.
std::string tool_recipe(const std::string& run, const std::string& dynamic_linking = "") {
  return R"(package:
  name: tool
  version: "1.0"
source:
  path: project
build:
  script:
    - mkdir -p "$PREFIX/lib" "$PREFIX/bin"
    - gcc -shared -fPIC -Wl,-soname,libown.so.1 -Wl,-rpath,/usr/local/lib/nowhere -o "$PREFIX/lib/libown.so.1" own.c
    - ln -s libown.so.1 "$PREFIX/lib/libown.so"
    - gcc -o "$PREFIX/bin/tool" tool.c -L"$PREFIX/lib" -lown -l:libhost.so.1 -Wl,-rpath,"$PREFIX/lib" -Wl,-rpath,"$BUILD_PREFIX/lib"
)" + dynamic_linking + R"(requirements:
  host:
    - hostlib
)" + run;
}

class BuildElf : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text_file(dir / "lib/host.c", "int host(void) { return 1; }\n");
    const auto compiled = run_program("gcc", {"-shared", "-fPIC", "-Wl,-soname,libhost.so.1", "-o",
                                              (dir / "lib/libhost.so.1").string(), (dir / "lib/host.c").string()});
    ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
    write_text_file(dir / "channel/noarch/repodata.json",
                    R"({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}})");
    channel.add(gpuenv::testing::PackageBuilder("hostlib", "1.0")
                    .file("lib/libhost.so.1", read_file(dir / "lib/libhost.so.1"), 0755)
                    .file("include/host.h", "int host(void);\n"));
    channel.add(gpuenv::testing::PackageBuilder("unlinked", "1.0").file("lib/libunlinked.so.2", "not linked\n"));
    write_text_file(dir / "recipe/project/own.c", "int own(void) { return 41; }\n");
    write_text_file(dir / "recipe/project/tool.c",
                    "#include <stdio.h>\nint own(void);\nint host(void);\n"
                    "int main(void) { printf(\"%d\\n\", own() + host()); return 0; }\n");
    auto loaded = gpuenv::testing::local_channel_settings(dir.path(), dir / "channel");
    ASSERT_TRUE(loaded) << loaded.error().message;
    settings = std::move(*loaded);
  }

  std::expected<gpuenv::build::BuiltPackage, gpuenv::build::BuildError> build(const std::string& recipe) {
    const auto recipe_file = dir / "recipe/recipe.yaml";
    write_text_file(recipe_file, recipe);
    gpuenv::recipe::RenderRequest render;
    render.target_platform = render.build_platform = "linux-64";
    auto rendered = gpuenv::recipe::render_recipe_file(recipe_file, render);
    EXPECT_TRUE(rendered) << rendered.error().message;
    gpuenv::build::BuildRequest request;
    request.recipe_file = recipe_file;
    request.recipe_text = recipe;
    request.output_dir = dir / "output";
    request.settings = &settings;
    request.build_platform = "linux-64";
    request.timestamp = 1700000000;
    request.zstd_level = 3;
    return gpuenv::build::build_variant(rendered->variants.front(), request, observer);
  }

  gpuenv::testing::TempDirectory dir;
  gpuenv::testing::ChannelBuilder channel{dir / "channel", "file://" + (dir / "channel").string()};
  gpuenv::environment::Settings settings;
  LogObserver observer;
};

std::string search_path_of(const fs::path& file) {
  const auto linking = gpuenv::cuda_binary::read_dynamic_linking(file.string());
  EXPECT_TRUE(linking) << linking.error().message;
  return linking->runpath.empty() ? linking->rpath : linking->runpath;
}

TEST_F(BuildElf, RpathsBecomeOriginRelativeAndThePackageRunsWhereverItIsInstalled) {
  const auto recipe = tool_recipe("  run:\n    - hostlib\n");
  const auto built = build(recipe);
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.steps;
  const auto root = dir / "installed";
  gpuenv::package::extract_package(built->package, root);
  EXPECT_EQ(search_path_of(root / "bin/tool"), "$ORIGIN/../lib");
  EXPECT_EQ(search_path_of(root / "lib/libown.so.1"), "");  // links nothing of the prefix
  EXPECT_EQ(read_file(root / "bin/tool").find((dir / "output").string()), std::string::npos);
  EXPECT_NE(observer.steps.find("rpath entry /usr/local/lib/nowhere is outside the host prefix, dropped"),
            std::string::npos)
      << observer.steps;
  EXPECT_EQ(observer.steps.find("warning: overlinking"), std::string::npos) << observer.steps;
  EXPECT_EQ(observer.steps.find("warning: overdepending"), std::string::npos) << observer.steps;

  // Installed somewhere else, with the run requirement's library beside it.
  fs::copy_file(dir / "lib/libhost.so.1", root / "lib/libhost.so.1");
  const auto ran = run_program((root / "bin/tool").string(), {}, {"-LD_LIBRARY_PATH"});
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out, "42\n");

  const auto first = read_file(built->package);
  const auto again = build(recipe);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(read_file(again->package) == first) << "the relocated package differs between two builds";
}

TEST_F(BuildElf, AllowlistedRpathsStayAndBinaryRelocationChoosesTheFiles) {
  auto built = build(tool_recipe("  run:\n    - hostlib\n",
                                 "  dynamic_linking:\n    rpath_allowlist:\n      - /usr/local/lib/*\n"));
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.steps;
  gpuenv::package::extract_package(built->package, dir / "allowlisted");
  EXPECT_EQ(search_path_of(dir / "allowlisted/lib/libown.so.1"), "/usr/local/lib/nowhere");
  EXPECT_EQ(search_path_of(dir / "allowlisted/bin/tool"), "$ORIGIN/../lib");

  built = build(tool_recipe("  run:\n    - hostlib\n", "  dynamic_linking:\n    binary_relocation:\n      - bin/*\n"));
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.steps;
  gpuenv::package::extract_package(built->package, dir / "only-bin");
  EXPECT_EQ(search_path_of(dir / "only-bin/bin/tool"), "$ORIGIN/../lib");
  EXPECT_EQ(search_path_of(dir / "only-bin/lib/libown.so.1"), "/usr/local/lib/nowhere");

  built = build(tool_recipe("  run:\n    - hostlib\n", "  dynamic_linking:\n    binary_relocation: false\n"));
  ASSERT_TRUE(built) << built.error().message << "\n" << observer.steps;
  gpuenv::package::extract_package(built->package, dir / "unrelocated");
  EXPECT_EQ(search_path_of(dir / "unrelocated/lib/libown.so.1"), "/usr/local/lib/nowhere");
  EXPECT_NE(search_path_of(dir / "unrelocated/bin/tool").find("host_env"), std::string::npos);
}

TEST_F(BuildElf, LinkingAHostLibraryThatIsNoRunRequirementIsOverlinking) {
  const auto warned = build(tool_recipe(""));
  ASSERT_TRUE(warned) << warned.error().message << "\n" << observer.steps;
  EXPECT_NE(observer.steps.find("warning: overlinking: bin/tool links libhost.so.1, which hostlib provides in the "
                                "host environment, but hostlib is not a run requirement"),
            std::string::npos)
      << observer.steps;
  EXPECT_NE(read_file(warned->log_file).find("overlinking: bin/tool"), std::string::npos);

  const auto failed = build(tool_recipe("", "  dynamic_linking:\n    overlinking_behavior: error\n"));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, gpuenv::build::BuildErrorKind::linking);
  EXPECT_NE(failed.error().message.find("bin/tool links libhost.so.1"), std::string::npos) << failed.error().message;
  EXPECT_FALSE(fs::exists(dir / "output/linux-64" / warned->package.filename()));

  const auto allowed = build(tool_recipe("", "  dynamic_linking:\n    overlinking_behavior: error\n"
                                             "    missing_dso_allowlist:\n      - \"*/libhost.so.*\"\n"));
  EXPECT_TRUE(allowed) << allowed.error().message;
}

TEST_F(BuildElf, ARunRequirementWhoseLibrariesNothingLinksIsOverdepending) {
  auto recipe = tool_recipe("  run:\n    - hostlib\n    - unlinked\n");
  recipe.replace(recipe.find("    - hostlib\n"), 14, "    - hostlib\n    - unlinked\n");
  const auto warned = build(recipe);
  ASSERT_TRUE(warned) << warned.error().message << "\n" << observer.steps;
  EXPECT_NE(observer.steps.find("warning: overdepending: the run requirement unlinked ships shared libraries "
                                "(libunlinked.so.2)"),
            std::string::npos)
      << observer.steps;

  recipe.replace(recipe.find("requirements:"), 0, "  dynamic_linking:\n    overdepending_behavior: error\n");
  const auto failed = build(recipe);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("overdepending: the run requirement unlinked"), std::string::npos)
      << failed.error().message;
}

}  // namespace
