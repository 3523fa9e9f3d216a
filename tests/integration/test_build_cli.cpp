// `gpuenv build` end to end, as a user runs it: a noarch: generic recipe
// whose script writes a file holding $PREFIX builds, and the .conda installs
// with `gpuenv create` from an @EXPLICIT file naming it by file:// URL (no
// channel index), the placeholder replaced; git sources, --source,
// --source-version and --package-format tar-bz2; a C library built with the
// machine's gcc links and runs; two builds give the same bytes; a wrong
// sha256, a hostile source archive and a failing script each fail clearly
// and leave no package behind. No network: file:// URLs and local channels.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuenv/cuda_binary/symbol_versions.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::read_file;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::write_text_file;

const char* const greeting_recipe = R"(package:
  name: greeting
  version: "1.0"
source:
  path: project
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/greeting"
    - cp message.txt "$PREFIX/share/greeting/"
    - echo "prefix=$PREFIX" > "$PREFIX/share/greeting/where.txt"
    - echo "greeting script done"
)";

class BuildCli : public ::testing::Test {
 protected:
  void SetUp() override {
    // An empty local channel: nothing to solve with, and no network.
    for (const char* subdir : {"noarch", "linux-64"}) {
      write_text_file(machine / "channel" / subdir / "repodata.json",
                      std::string(R"({"info": {"subdir": ")") + subdir +
                          R"("}, "packages": {}, "packages.conda": {}})");
    }
  }

  CommandOutput build(const fs::path& recipe_dir, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"build",     recipe_dir.string(), "--output-dir", output().string(),
                                     "-c",        "file://" + (machine / "channel").string(),
                                     "--override-channels"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, machine.env());
  }

  fs::path write_recipe(const std::string& name, const std::string& text) const {
    write_text_file(machine / name / "recipe.yaml", text);
    return machine / name;
  }

  // A C library lib<name>.so, version 0.1, of `source` (<name>.c) built with
  // $CC, its recipe in <root>/lib<name>; `build_requirements` are its
  // requirements.build lines.
  fs::path write_c_library(const std::string& name, const std::string& source,
                           const std::string& build_requirements) const {
    write_text_file(machine / ("lib" + name) / "src" / (name + ".c"), source);
    return write_recipe("lib" + name, "package:\n  name: lib" + name + R"(
  version: "0.1"
source:
  path: src
build:
  script:
    - mkdir -p "$PREFIX/lib"
    - $CC -shared -fPIC -o "$PREFIX/lib/lib)" + name + ".so\" " + name + R"(.c
requirements:
  build:
)" + build_requirements);
  }

  fs::path write_libdemo(const std::string& build_requirements) const {
    return write_c_library("demo", "int demo_answer(void) { return 42; }\n", build_requirements);
  }

  // lib/libnew.so calls reallocarray: GLIBC_2.26.
  fs::path write_libnew(const std::string& build_requirements) const {
    return write_c_library("new", "#include <stdlib.h>\nvoid *grow(void *p, size_t n) { return reallocarray(p, n, 8); }\n",
                           build_requirements);
  }

  fs::path output() const { return machine / "output"; }

  std::size_t packages_in_output() const {
    std::size_t count = 0;
    if (!fs::exists(output())) return 0;
    for (const auto& entry : fs::recursive_directory_iterator(output())) {
      count += entry.path().extension() == ".conda" ? 1 : 0;
    }
    return count;
  }

  gpuenv::testing::SolveCliMachine machine;
};

TEST_F(BuildCli, NoarchPackageInstallsFromAnExplicitFileWithItsPrefixReplaced) {
  write_text_file(machine / "greeting/project/message.txt", "hello\n");
  const auto recipe = write_recipe("greeting", greeting_recipe);
  const auto result = build(recipe, {"--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto document = gpuenv::testing::parse_json(result);
  ASSERT_EQ(document["packages"].size(), 1u) << result.out;
  const fs::path package = document["packages"][0]["package"].get<std::string>();
  EXPECT_EQ(package.parent_path(), output() / "noarch");
  EXPECT_NE(read_file(document["packages"][0]["log"].get<std::string>()).find("greeting script done"),
            std::string::npos);

  write_text_file(machine / "explicit.txt", "@EXPLICIT\nfile://" + package.string() + "#" +
                                                gpuenv::package::hash_file(package, true, false).sha256 + "\n");
  const auto prefix = machine / "env";
  const auto created = run_gpuenv({"create", "-y", "-p", prefix.string(), "--file", (machine / "explicit.txt").string()},
                                  machine.env());
  ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  EXPECT_EQ(read_file(prefix / "share/greeting/message.txt"), "hello\n");
  EXPECT_EQ(read_file(prefix / "share/greeting/where.txt"), "prefix=" + prefix.string() + "\n");
  EXPECT_TRUE(fs::exists(prefix / ("conda-meta/" + package.stem().string() + ".json")));

  // The output directory is an indexed channel: installable by name.
  EXPECT_TRUE(fs::exists(output() / "noarch/repodata.json"));
  const auto from_channel = machine / "env-from-channel";
  const auto by_name = run_gpuenv({"create", "-y", "-p", from_channel.string(), "--override-channels", "-c",
                                   output().string(), "greeting"},
                                  machine.env());
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err << by_name.out;
  EXPECT_EQ(read_file(from_channel / "share/greeting/where.txt"), "prefix=" + from_channel.string() + "\n");
}

TEST_F(BuildCli, CLibraryBuiltWithTheMachinesGccLinksAndRuns) {
  const auto recipe = write_libdemo("    - ${{ compiler('c') }}\n");
  const auto result = build(recipe);
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_NE(result.err.find("using this machine's"), std::string::npos) << result.err;
  const auto packages = output() / "linux-64";
  ASSERT_TRUE(fs::exists(packages));
  fs::path package;
  for (const auto& entry : fs::directory_iterator(packages)) {
    if (entry.path().extension() == ".conda") package = entry.path();
  }
  ASSERT_EQ(package.extension(), ".conda");

  write_text_file(machine / "explicit.txt", "@EXPLICIT\nfile://" + package.string() + "\n");
  const auto prefix = machine / "env";
  const auto created = run_gpuenv({"create", "-y", "-p", prefix.string(), "--file", (machine / "explicit.txt").string()},
                                  machine.env());
  ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  write_text_file(machine / "main.c",
                  "#include <stdio.h>\nint demo_answer(void);\nint main(void) { printf(\"%d\\n\", demo_answer()); }\n");
  const auto linked = gpuenv::testing::run_program(
      "gcc", {(machine / "main.c").string(), "-L" + (prefix / "lib").string(), "-ldemo", "-o", (machine / "demo").string()});
  ASSERT_EQ(linked.exit_code, 0) << linked.err;
  const auto ran = gpuenv::testing::run_program((machine / "demo").string(), {},
                                                {"LD_LIBRARY_PATH=" + (prefix / "lib").string()});
  EXPECT_EQ(ran.out, "42\n") << ran.err;
}

// stdlib('c') renders to conda-forge's sysroot_linux-64, which a channel
// without compiler packages lacks too: the machine's gcc links the machine's
// glibc, and the package needs at least that glibc where it runs, as
// conda-forge's sysroot exports its own.
TEST_F(BuildCli, StdlibWithoutASysrootInTheChannelsIsTheMachinesGlibcAndIsExported) {
  const auto recipe = write_libdemo("    - ${{ stdlib('c') }}\n    - ${{ compiler('c') }}\n");
  const auto result = build(recipe, {"--variant", "c_stdlib=sysroot", "--variant", "c_stdlib_version=2.17", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto report = nlohmann::json::parse(result.out);
  const fs::path package = report["packages"][0]["package"].get<std::string>();
  const auto log = read_file(report["packages"][0]["log"].get<std::string>());
  EXPECT_NE(log.find("stdlib: the channels do not provide sysroot_linux-64"), std::string::npos) << log;
  gpuenv::package::extract_package(package, machine / "extracted");
  const auto index = nlohmann::json::parse(read_file(machine / "extracted/info/index.json"));
  const auto glibc = gpuenv::testing::run_program("getconf", {"GNU_LIBC_VERSION"}).out;  // "glibc 2.36"
  const auto version = glibc.substr(glibc.find(' ') + 1, glibc.find_last_not_of("\n") - glibc.find(' '));
  EXPECT_EQ(index["depends"], nlohmann::json::array({"__glibc >=" + version + ",<3.0.a0"})) << index.dump();
}

// issue 34: a library calling reallocarray (GLIBC_2.26) built with the
// machine's gcc needs the glibc its file says; the record says so, so an
// older machine (CONDA_OVERRIDE_GLIBC) is refused by the solver naming
// glibc, and doctor on such a machine fails the file.
TEST_F(BuildCli, TheGlibcAFileNeedsIsARunRequirementThatKeepsItOffOlderMachines) {
  const auto result = build(write_libnew("    - ${{ compiler('c') }}\n"), {"--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto report = nlohmann::json::parse(result.out);
  const fs::path package = report["packages"][0]["package"].get<std::string>();
  gpuenv::package::extract_package(package, machine / "extracted");
  const auto versions = gpuenv::cuda_binary::read_symbol_versions((machine / "extracted/lib/libnew.so").string());
  ASSERT_TRUE(versions) << versions.error().message;
  const auto needed = gpuenv::cuda_binary::highest_version(gpuenv::cuda_binary::needed_versions(*versions), "GLIBC_");
  ASSERT_TRUE(needed);
  const auto floor = gpuenv::cuda_binary::dotted(needed->numbers);
  const auto index = nlohmann::json::parse(read_file(machine / "extracted/info/index.json"));
  EXPECT_EQ(index["depends"], nlohmann::json::array({"__glibc >=" + floor + ",<3.0.a0"})) << index.dump();
  const auto log = read_file(report["packages"][0]["log"].get<std::string>());
  EXPECT_NE(log.find("glibc: lib/libnew.so needs " + needed->tag + " (libc.so.6)"), std::string::npos) << log;

  const auto refused = run_gpuenv({"create", "-y", "-p", (machine / "old-env").string(), "--override-channels", "-c",
                                   output().string(), "libnew"},
                                  machine.env({"CONDA_OVERRIDE_GLIBC=2.25"}));
  EXPECT_NE(refused.exit_code, 0) << refused.out;
  EXPECT_NE(refused.err.find("__glibc"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(machine / "old-env/lib/libnew.so"));

  const auto prefix = machine / "env";
  const auto created = run_gpuenv({"create", "-y", "-p", prefix.string(), "--override-channels", "-c",
                                   output().string(), "libnew"},
                                  machine.env());
  ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  const auto fine = run_gpuenv({"doctor", "-p", prefix.string(), "--gpu", "sm_90"}, machine.env());
  EXPECT_EQ(fine.exit_code, 0) << fine.out << fine.err;
  EXPECT_NE(fine.out.find("every ELF file can load here"), std::string::npos) << fine.out;
  const auto older = run_gpuenv({"doctor", "-p", prefix.string(), "--gpu", "sm_90"},
                                machine.env({"CONDA_OVERRIDE_GLIBC=2.25"}));
  EXPECT_EQ(older.exit_code, 1) << older.out << older.err;
  EXPECT_NE(older.out.find("FAIL lib/libnew.so (libnew-0.1-"), std::string::npos) << older.out;
  EXPECT_NE(older.out.find("needs " + needed->tag + " of libc.so.6, but this machine's glibc is 2.25"),
            std::string::npos) << older.out;
}

TEST_F(BuildCli, AGlibcFloorTheRecipeDeclaresThatAFileBreaksFailsTheBuildNamingTheFile) {
  const auto recipe = write_libnew("    - ${{ stdlib('c') }}\n    - ${{ compiler('c') }}\n");
  const auto result = build(recipe, {"--variant", "c_stdlib=sysroot", "--variant", "c_stdlib_version=2.17"});
  EXPECT_EQ(result.exit_code, 1) << result.err << result.out;
  EXPECT_NE(result.err.find("lib/libnew.so needs GLIBC_2."), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("declares glibc 2.17 as the oldest it supports (c_stdlib_version 2.17)"),
            std::string::npos) << result.err;
  EXPECT_EQ(packages_in_output(), 0u);
}

// issue 34: with the machine's gcc standing in for compiler('c'), the
// package depends on the GCC runtime it was built with -- libgcc at least
// the machine gcc's version -- where the channels have one
// (recipes/gcc-runtime), as conda-forge's compiler package exports it.
TEST_F(BuildCli, TheMachinesCompilerExportsItsRuntimeWhereTheChannelsHaveIt) {
  const auto gcc = gpuenv::testing::run_program("gcc", {"-dumpfullversion"}).out;
  const auto version = gcc.substr(0, gcc.find_last_not_of("\n") + 1);
  const auto recipe = write_libdemo("    - ${{ compiler('c') }}\n");
  auto result = build(recipe, {"--json", "--no-test"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  auto report = nlohmann::json::parse(result.out);
  auto log = read_file(report["packages"][0]["log"].get<std::string>());
  EXPECT_NE(log.find("compiler runtime: the channels have no libgcc >=" + version), std::string::npos) << log;

  // A libgcc newer than any gcc, in the output channel (which later builds use).
  const auto runtime = write_recipe("runtime", R"(package:
  name: libgcc
  version: "99.1.0"
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/libgcc" && echo stand-in > "$PREFIX/share/libgcc/README"
)");
  // Given after the library, in one repository build: compiler('c') needs
  // libgcc, so the recipe making it builds first and the export is met.
  result = run_gpuenv({"build", recipe.string(), runtime.string(), "--output-dir", output().string(), "-c",
                       "file://" + (machine / "channel").string(), "--override-channels", "--no-test",
                       "--skip-existing=none", "--json"},
                      machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  report = nlohmann::json::parse(result.out);
  ASSERT_EQ(report["packages"].size(), 2u) << result.out;
  EXPECT_EQ(report["packages"][0]["name"], "libgcc") << result.out;
  const fs::path package = report["packages"][1]["package"].get<std::string>();
  gpuenv::package::extract_package(package, machine / "extracted");
  const auto index = nlohmann::json::parse(read_file(machine / "extracted/info/index.json"));
  const auto depends = index["depends"].dump();
  EXPECT_NE(depends.find("\"libgcc >=" + version + "\""), std::string::npos) << depends;
}

// A staging output is read and rendered, but the builder does not run it:
// refused, rather than building outputs without what it would have made.
TEST_F(BuildCli, AStagingOutputIsRefusedNotSilentlySkipped) {
  const auto recipe = write_recipe("staged", R"(recipe:
  name: staged
  version: "1.0"
outputs:
  - staging:
      name: shared-build
    build:
      script:
        - mkdir -p "$PREFIX/share" && echo built > "$PREFIX/share/staged.txt"
  - package:
      name: staged-data
    inherit: shared-build
    build:
      noarch: generic
      script:
        - test -f "$PREFIX/share/staged.txt"
)");
  const auto result = build(recipe);
  EXPECT_EQ(result.exit_code, 1) << result.err << result.out;
  EXPECT_NE(result.err.find("the staging output 'shared-build'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("is not built by gpuenv build yet"), std::string::npos) << result.err;
  EXPECT_EQ(packages_in_output(), 0u);
}

TEST_F(BuildCli, BuildingTwiceGivesIdenticalBytes) {
  write_text_file(machine / "greeting/project/message.txt", "hello\n");
  const auto recipe = write_recipe("greeting", greeting_recipe);
  const auto first = build(recipe, {"--json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const fs::path package = gpuenv::testing::parse_json(first)["packages"][0]["package"].get<std::string>();
  const auto bytes = read_file(package);
  const auto second = build(recipe, {"--json"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(read_file(package) == bytes) << "two builds of the same recipe differ";
}

TEST_F(BuildCli, TarBz2PackageFormatInstallsIsReproducibleAndIsIndexed) {
  write_text_file(machine / "greeting/project/message.txt", "hello\n");
  std::string text = greeting_recipe;
  const std::string last_line = "    - echo \"greeting script done\"";
  // bin/ sorts before info/.
  text.replace(text.find(last_line), last_line.size(), "    - mkdir -p \"$PREFIX/bin\" && echo greet > \"$PREFIX/bin/greet\"");
  const auto recipe = write_recipe("greeting", text);
  const auto first = build(recipe, {"--json", "--package-format", "tar-bz2"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const fs::path package = gpuenv::testing::parse_json(first)["packages"][0]["package"].get<std::string>();
  ASSERT_TRUE(package.string().ends_with(".tar.bz2")) << package;
  EXPECT_EQ(packages_in_output(), 0u) << "no .conda next to the .tar.bz2";
  const auto bytes = read_file(package);
  EXPECT_EQ(bytes.substr(0, 3), "BZh");
  // info/ first, as rattler-build and conda-package-handling write it: a
  // reader that wants only the metadata stops early.
  const auto listing = gpuenv::testing::run_program("tar", {"-tjf", package.string()});
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_TRUE(listing.out.starts_with("info/")) << listing.out;
  EXPECT_EQ(listing.out.find("\ninfo/", listing.out.find("bin/greet")), std::string::npos) << listing.out;
  const auto second = build(recipe, {"--json", "--package-format", "tar-bz2:9"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(read_file(package) == bytes) << "two .tar.bz2 builds of the same recipe differ";

  const auto repodata = nlohmann::json::parse(read_file(output() / "noarch/repodata.json"));
  EXPECT_TRUE(repodata["packages"].contains(package.filename().string())) << repodata.dump(2);
  EXPECT_TRUE(repodata["packages.conda"].empty()) << repodata.dump(2);

  const auto prefix = machine / "env";
  const auto created = run_gpuenv(
      {"create", "-y", "-p", prefix.string(), "--override-channels", "-c", output().string(), "greeting"},
      machine.env());
  ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  EXPECT_EQ(read_file(prefix / "share/greeting/message.txt"), "hello\n");
  EXPECT_EQ(read_file(prefix / "share/greeting/where.txt"), "prefix=" + prefix.string() + "\n");
}

TEST_F(BuildCli, MalformedPackageFormatIsAUsageError) {
  write_text_file(machine / "greeting/project/message.txt", "hello\n");
  const auto result = build(write_recipe("greeting", greeting_recipe), {"--package-format", "tar-bz2:12"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("tar-bz2:12"), std::string::npos) << result.err;
}

TEST_F(BuildCli, SourceOptionBuildsFromALocalArchiveInsteadOfAnUnreachableUrl) {
  write_text_file(machine / "tree/greeting-2.0rc1/message.txt", "release candidate\n");
  const auto tarball = machine / "greeting-2.0rc1.tar.xz";
  ASSERT_EQ(gpuenv::testing::run_program("tar", {"-cJf", tarball.string(), "-C", (machine / "tree").string(),
                                                 "greeting-2.0rc1"})
                .exit_code,
            0);
  std::string recipe = greeting_recipe;
  // Port 9 on loopback (discard) refuses: the recipe's url cannot be fetched.
  recipe.replace(recipe.find("  path: project\n"), 16,
                 "  url: http://127.0.0.1:9/greeting-1.0.tar.gz\n  sha256: " + std::string(64, '0') +
                     "\n  patches:\n    - missing.patch\n");
  const std::string version_line = "    - echo \"greeting script done\"";
  recipe.replace(recipe.find(version_line), version_line.size(),
                 "    - echo \"$PKG_VERSION\" > \"$PREFIX/share/greeting/version.txt\"");
  const auto dir = write_recipe("greeting", recipe);
  const auto unreachable = build(dir);
  ASSERT_NE(unreachable.exit_code, 0) << "the url must be unreachable for this test to mean anything";

  const auto result = build(dir, {"--json", "--source", tarball.string(), "--source-version", "2.0rc1"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto document = gpuenv::testing::parse_json(result);
  const fs::path package = document["packages"][0]["package"].get<std::string>();
  EXPECT_TRUE(package.filename().string().starts_with("greeting-2.0rc1-")) << package;
  EXPECT_EQ(document["packages"][0]["version"], "2.0rc1");
  const auto extracted = machine / "extracted";
  gpuenv::package::extract_package(package, extracted);
  EXPECT_EQ(read_file(extracted / "share/greeting/message.txt"), "release candidate\n");
  EXPECT_EQ(read_file(extracted / "share/greeting/version.txt"), "2.0rc1\n");
  const auto index = nlohmann::json::parse(read_file(extracted / "info/index.json"));
  EXPECT_EQ(index["version"], "2.0rc1");
  const auto about = nlohmann::json::parse(read_file(extracted / "info/about.json"));
  const auto& recorded = about["extra"]["gpuenv_source_override"];
  EXPECT_EQ(recorded["source"], tarball.string()) << about.dump(2);
  EXPECT_EQ(recorded["version"], "2.0rc1");
  EXPECT_EQ(recorded["recipe_version"], "1.0");
}

TEST_F(BuildCli, SourceOptionRefusesWhatIsNeitherADirectoryNorAnArchive) {
  write_text_file(machine / "greeting/project/message.txt", "hello\n");
  const auto dir = write_recipe("greeting", greeting_recipe);
  write_text_file(machine / "notes.txt", "not an archive\n");
  for (const auto& [option, value] : std::vector<std::pair<std::string, std::string>>{
           {"--source", (machine / "missing").string()},
           {"--source", (machine / "notes.txt").string()},
           {"--source-version", "1.0-1"}}) {
    const auto result = build(dir, {option, value});
    EXPECT_EQ(result.exit_code, 2) << option << " " << value << ": " << result.err;
    EXPECT_NE(result.err.find(value), std::string::npos) << result.err;
  }
  EXPECT_EQ(packages_in_output(), 0u);
}

TEST_F(BuildCli, GitSourceByTagBuildsWithGitDescribeInTheScript) {
  const auto repo = machine / "upstream";
  const auto git = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"-c", "user.name=Test", "-c", "user.email=test@example.org", "-c",
                               "commit.gpgsign=false", "-C", repo.string()});
    const auto result = gpuenv::testing::run_program("git", args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
  };
  std::filesystem::create_directories(repo);
  git({"init", "--quiet", "-b", "main"});
  write_text_file(repo / "message.txt", "from git\n");
  git({"add", "message.txt"});
  git({"commit", "--quiet", "-m", "first"});
  git({"tag", "v1.0"});
  write_text_file(repo / "message.txt", "later\n");
  git({"commit", "--quiet", "-am", "second"});
  std::string recipe = greeting_recipe;
  recipe.replace(recipe.find("  path: project\n"), 16,
                 "  git: " + repo.string() + "\n  tag: v1.0\n  depth: 1\n");
  const std::string last_line = "    - echo \"greeting script done\"";
  recipe.replace(recipe.find(last_line), last_line.size(),
                 "    - git describe --tags > \"$PREFIX/share/greeting/describe.txt\"");
  const auto result = build(write_recipe("greeting", recipe), {"--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const fs::path package = gpuenv::testing::parse_json(result)["packages"][0]["package"].get<std::string>();
  const auto extracted = machine / "extracted";
  gpuenv::package::extract_package(package, extracted);
  EXPECT_EQ(read_file(extracted / "share/greeting/message.txt"), "from git\n");
  EXPECT_EQ(read_file(extracted / "share/greeting/describe.txt"), "v1.0\n");
}

TEST_F(BuildCli, WrongSha256FailsNamingBothDigestsAndLeavesNoPackage) {
  write_text_file(machine / "tree/proj-1.0/message.txt", "hello\n");
  const auto tarball = machine / "proj-1.0.tar.gz";
  ASSERT_EQ(gpuenv::testing::run_program("tar", {"-czf", tarball.string(), "-C", (machine / "tree").string(), "proj-1.0"})
                .exit_code,
            0);
  const std::string wrong(64, '0');
  std::string recipe = greeting_recipe;
  recipe.replace(recipe.find("  path: project\n"), 16,
                 "  url: file://" + tarball.string() + "\n  sha256: " + wrong + "\n");
  const auto result = build(write_recipe("greeting", recipe));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find(wrong), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(gpuenv::package::hash_file(tarball, true, false).sha256), std::string::npos) << result.err;
  EXPECT_EQ(packages_in_output(), 0u);
}

TEST_F(BuildCli, HostileSourceArchivesAreRefusedAndLeaveNoPackage) {
  using gpuenv::package::PackageMember;
  for (const bool absolute_symlink : {false, true}) {
    PackageMember member;
    if (absolute_symlink) {
      member.path = "proj/etc";
      member.kind = PackageMember::Kind::symlink;
      member.link_target = "/etc";
    } else {
      member.path = "proj/../../../escaped.txt";
      member.content = "escaped\n";
    }
    const auto archive = machine / "evil-1.0.tar.bz2";
    gpuenv::package::write_package_members(archive, {member});
    std::string recipe = greeting_recipe;
    recipe.replace(recipe.find("  path: project\n"), 16,
                   "  url: file://" + archive.string() + "\n  sha256: " +
                       gpuenv::package::hash_file(archive, true, false).sha256 + "\n");
    const auto result = build(write_recipe("greeting", recipe));
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_NE(result.err.find("refusing to extract"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(member.path), std::string::npos) << result.err;
    EXPECT_EQ(packages_in_output(), 0u);
    EXPECT_FALSE(fs::exists(machine / "escaped.txt"));
    EXPECT_FALSE(fs::exists(output() / "escaped.txt"));
  }
}

TEST_F(BuildCli, FailingScriptShowsTheLogsTailAndLeavesNoPackage) {
  write_text_file(machine / "greeting/project/message.txt", "hello\n");
  std::string recipe = greeting_recipe;
  const std::string last_line = "    - echo \"greeting script done\"";
  recipe.replace(recipe.find(last_line), last_line.size(), "    - echo \"compiler said no\" >&2\n    - false");
  const auto result = build(write_recipe("greeting", recipe));
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("the build script failed (exit status 1)"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("compiler said no"), std::string::npos) << result.err;
  EXPECT_EQ(packages_in_output(), 0u);
}

// A library's run_exports reach what is built against it, through the
// output directory used as a channel, and what was built installs.
TEST_F(BuildCli, RunExportsOfAPackageBuiltHereReachTheNextOne) {
  const auto exporter = build(write_recipe("apkg", R"(package:
  name: apkg
  version: "1.5"
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share" && echo a > "$PREFIX/share/apkg.txt"
requirements:
  run_exports:
    weak:
      - ${{ pin_subpackage('apkg', upper_bound='x') }}
)"));
  ASSERT_EQ(exporter.exit_code, 0) << exporter.err;
  const auto importer = build(write_recipe("bpkg", R"(package:
  name: bpkg
  version: "0.1"
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share" && echo b > "$PREFIX/share/bpkg.txt"
requirements:
  host:
    - apkg
  run_exports:
    noarch:
      - ${{ pin_subpackage('bpkg', exact=True) }}
)"),
                              {"-c", "file://" + output().string()});
  ASSERT_EQ(importer.exit_code, 0) << importer.err;
  // noarch: only the host packages' noarch exports apply, and apkg has none.
  auto repodata = nlohmann::json::parse(read_file(output() / "noarch/repodata.json"));
  for (const auto& [file, record] : repodata["packages.conda"].items()) {
    if (record["name"] == "bpkg") {
      EXPECT_EQ(record["depends"], nlohmann::json::array()) << file;
    }
  }
  const auto linux_importer = build(write_recipe("cpkg", R"(package:
  name: cpkg
  version: "0.1"
build:
  script:
    - mkdir -p "$PREFIX/share" && echo c > "$PREFIX/share/cpkg.txt"
requirements:
  host:
    - apkg
)"),
                                    {"-c", "file://" + output().string()});
  ASSERT_EQ(linux_importer.exit_code, 0) << linux_importer.err;
  repodata = nlohmann::json::parse(read_file(output() / "linux-64/repodata.json"));
  ASSERT_EQ(repodata["packages.conda"].size(), 1u) << repodata.dump(1);
  EXPECT_EQ(repodata["packages.conda"].begin().value()["depends"], nlohmann::json::array({"apkg >=1.5,<2.0a0"}));
  const auto run_exports = nlohmann::json::parse(read_file(output() / "noarch/run_exports.json"));
  EXPECT_NE(run_exports.dump().find("bpkg ==0.1 h"), std::string::npos) << run_exports.dump(1);

  const auto prefix = machine / "env";
  const auto created = run_gpuenv({"create", "-y", "-p", prefix.string(), "--override-channels", "-c",
                                   "file://" + output().string(), "cpkg"},
                                  machine.env());
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_TRUE(fs::exists(prefix / "share/apkg.txt"));
  EXPECT_TRUE(fs::exists(prefix / "share/cpkg.txt"));
}

}  // namespace
