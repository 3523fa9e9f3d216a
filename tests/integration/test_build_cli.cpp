// `gpuenv build` end to end, as a user runs it: a noarch: generic recipe
// whose script writes a file holding $PREFIX builds, and the .conda installs
// with `gpuenv create` from an @EXPLICIT file naming it by file:// URL (no
// channel index), the placeholder replaced; a C library built with the
// machine's gcc links and runs; two builds give the same bytes; a wrong
// sha256, a hostile source archive and a failing script each fail clearly
// and leave no package behind. No network: file:// URLs and local channels.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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
  write_text_file(machine / "libdemo/src/demo.c", "int demo_answer(void) { return 42; }\n");
  const auto recipe = write_recipe("libdemo", R"(package:
  name: libdemo
  version: "0.1"
source:
  path: src
build:
  script:
    - mkdir -p "$PREFIX/lib"
    - $CC -shared -fPIC -o "$PREFIX/lib/libdemo.so" demo.c
requirements:
  build:
    - ${{ compiler('c') }}
)");
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
    if (record["name"] == "bpkg") EXPECT_EQ(record["depends"], nlohmann::json::array()) << file;
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
