// `gpuenv create`, `install`, `update` and `remove` end to end: the
// environment they leave (files, conda-meta records in conda's schema,
// history), what they print, and how they fail.
#include <gtest/gtest.h>

#include <fstream>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <future>

#include "support/test_http_server.hpp"
#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::installed_dists;
using gpuenv::testing::InstallCliMachine;
using gpuenv::testing::parse_json;
using gpuenv::testing::read_file;
using gpuenv::testing::read_json_file;
using gpuenv::testing::run_gpuenv;
using Dists = std::vector<std::string>;

using gpuenv::testing::contains;

TEST(InstallCli, CreateLinksThePackagesAndWritesCondasRecords) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  const auto result = machine.gpuenv("create", prefix, {"app"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0"}));
  EXPECT_TRUE(contains(result.out, "Linked 2 packages")) << result.out;
  EXPECT_TRUE(contains(result.out, "downloaded")) << result.out;

  // Files, with the placeholder replaced by the prefix in text and binary files.
  EXPECT_EQ(read_file(prefix / "share/libdep/VERSION"), "2.0\n");
  EXPECT_EQ(read_file(prefix / "share/libdep/config.txt"), "prefix=" + prefix.string() + "\nversion=2.0\n");
  EXPECT_TRUE(contains(read_file(prefix / "lib/libdep.so"), prefix.string() + std::string(1, '\0')));
  EXPECT_EQ(read_file(prefix / "bin/app"), "#!/bin/sh\necho app from " + prefix.string() + "\n");
  struct stat info {};
  ASSERT_EQ(::stat((prefix / "bin/app").c_str(), &info), 0);
  EXPECT_TRUE(info.st_mode & S_IXUSR);
  EXPECT_EQ(fs::read_symlink(prefix / "lib/libdep.so.1"), "libdep.so");

  // conda's record schema.
  const auto record = read_json_file(prefix / "conda-meta/app-1.0-h1_0.json");
  ASSERT_TRUE(record.is_object());
  EXPECT_EQ(record["name"], "app");
  EXPECT_EQ(record["version"], "1.0");
  EXPECT_EQ(record["build"], "h1_0");
  EXPECT_EQ(record["build_number"], 0);
  EXPECT_EQ(record["channel"], machine.channel() + "/linux-64");
  EXPECT_EQ(record["subdir"], "linux-64");
  EXPECT_EQ(record["fn"], "app-1.0-h1_0.conda");
  EXPECT_EQ(record["url"], machine.channel() + "/linux-64/app-1.0-h1_0.conda");
  EXPECT_EQ(record["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(record["md5"].get<std::string>().size(), 32u);
  EXPECT_EQ(record["depends"], nlohmann::json::array({"libdep >=1.0"}));
  EXPECT_EQ(record["requested_spec"], "app");
  EXPECT_EQ(record["files"], nlohmann::json::array({"bin/app", "share/app/README"}));
  ASSERT_EQ(record["paths_data"]["paths"].size(), 2u);
  const auto& script = record["paths_data"]["paths"][0];
  EXPECT_EQ(script["_path"], "bin/app");
  EXPECT_EQ(script["path_type"], "hardlink");
  EXPECT_EQ(script["file_mode"], "text");
  EXPECT_EQ(script["prefix_placeholder"], gpuenv::testing::long_placeholder());
  EXPECT_EQ(record["paths_data"]["paths_version"], 1);
  EXPECT_TRUE(record["link"].contains("source"));
  EXPECT_TRUE(record["link"].contains("type"));
  // The dependency was not asked for by name.
  EXPECT_EQ(read_json_file(prefix / "conda-meta/libdep-2.0-h0_0.json")["requested_spec"], "");

  const auto history = read_file(prefix / "conda-meta/history");
  EXPECT_TRUE(contains(history, "# cmd: ")) << history;
  EXPECT_TRUE(contains(history, "create -p " + prefix.string())) << history;
  EXPECT_TRUE(contains(history, "+" + machine.channel() + "/linux-64::app-1.0-h1_0")) << history;
  EXPECT_TRUE(contains(history, "# update specs: ['app']")) << history;
}

TEST(InstallCli, InstallAddsPackagesAndKeepsWhatIsThere) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"libdep=1.0"}).exit_code, 0);
  const auto result = machine.gpuenv("install", prefix, {"app", "tool"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  // libdep 2.0 would do for app, but libdep=1.0 was asked for and stays.
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-1.0-h0_0", "tool-1.0-0"}));
  EXPECT_TRUE(contains(result.out, "Linked 2 packages")) << result.out;
  EXPECT_EQ(read_json_file(prefix / "conda-meta/libdep-1.0-h0_0.json")["requested_spec"], "libdep=1.0");

  const auto again = machine.gpuenv("install", prefix, {"tool"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(contains(again.out, "All requested packages already installed")) << again.out;
}

TEST(InstallCli, InstallOfAnUnsatisfiableSpecFailsAndChangesNothing) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  const auto before = gpuenv::testing::snapshot_prefix(prefix);
  const auto result = machine.gpuenv("install", prefix, {"libdep >=3"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "libdep")) << result.err;
  EXPECT_EQ(gpuenv::testing::snapshot_prefix(prefix), before);
}

TEST(InstallCli, UpdateMovesToTheNewerVersion) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"app", "libdep=1.0"}).exit_code, 0);
  ASSERT_EQ(read_file(prefix / "share/libdep/VERSION"), "1.0\n");

  const auto result = machine.gpuenv("update", prefix, {"libdep"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0"}));
  EXPECT_EQ(read_file(prefix / "share/libdep/VERSION"), "2.0\n");
  EXPECT_TRUE(contains(result.out, "Linked 1 package, unlinked 1")) << result.out;
  const auto history = read_file(prefix / "conda-meta/history");
  EXPECT_TRUE(contains(history, "-" + machine.channel() + "/linux-64::libdep-1.0-h0_0")) << history;
  EXPECT_TRUE(contains(history, "+" + machine.channel() + "/linux-64::libdep-2.0-h0_0")) << history;

  const auto again = machine.gpuenv("update", prefix, {"libdep"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(contains(again.out, "already installed")) << again.out;
}

TEST(InstallCli, UpdateAllLetsPinnedRequestsFloat) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"libdep=1.0", "tool"}).exit_code, 0);
  const auto result = machine.gpuenv("update", prefix, {"--all"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_EQ(installed_dists(prefix), (Dists{"libdep-2.0-h0_0", "tool-1.0-0"}));
}

TEST(InstallCli, UpdateNamesWhatIsNotInstalled) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  const auto result = machine.gpuenv("update", prefix, {"other"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "other is not installed in " + prefix.string())) << result.err;
  const auto neither = machine.gpuenv("update", prefix, {});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_TRUE(contains(neither.err, "--all")) << neither.err;
}

TEST(InstallCli, RemoveTakesTheFilesRecordsAndDependentsAway) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"app", "tool"}).exit_code, 0);
  const auto result = machine.gpuenv("remove", prefix, {"libdep"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  // app needs libdep: it goes too (conda's behaviour); tool stays.
  EXPECT_EQ(installed_dists(prefix), (Dists{"tool-1.0-0"}));
  EXPECT_TRUE(contains(result.out, "Unlinked 2 packages")) << result.out;
  for (const char* gone : {"bin/app", "lib/libdep.so", "lib/libdep.so.1", "share/libdep", "share/app"}) {
    EXPECT_FALSE(fs::exists(fs::symlink_status(prefix / gone))) << gone;
  }
  EXPECT_TRUE(fs::exists(prefix / "bin/tool"));
  EXPECT_TRUE(contains(read_file(prefix / "conda-meta/history"), "# remove specs: ['libdep']"));
  // The table names the channel as create showed it, not conda-meta's
  // "<channel>/<subdir>".
  EXPECT_FALSE(contains(result.out, "/linux-64 ")) << result.out;
  EXPECT_FALSE(contains(result.out, "/noarch ")) << result.out;
}

// conda remove --all / conda env remove: every package unlinked, then the
// directory deleted with what else it holds (conda's rm_rf).
TEST(InstallCli, RemoveAllDeletesTheWholeEnvironmentAsCondaDoes) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"app", "tool"}).exit_code, 0);
  gpuenv::testing::write_text_file(prefix / "notes/untracked.txt", "mine\n");
  const auto before = gpuenv::testing::snapshot_prefix(prefix);

  const auto dry = machine.gpuenv("remove", prefix, {"--all", "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err << dry.out;
  EXPECT_TRUE(contains(dry.out, "every file in it will be deleted")) << dry.out;
  EXPECT_EQ(gpuenv::testing::snapshot_prefix(prefix), before);

  const auto removed = machine.gpuenv("remove", prefix, {"--all"});
  ASSERT_EQ(removed.exit_code, 0) << removed.err << removed.out;
  EXPECT_TRUE(contains(removed.out, "Unlinked 3 packages")) << removed.out;
  EXPECT_TRUE(contains(removed.out, "Removed the environment " + prefix.string())) << removed.out;
  EXPECT_FALSE(fs::exists(fs::symlink_status(prefix)));

  // `env remove` is the same command; an environment with no package left
  // goes too.
  ASSERT_EQ(machine.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  ASSERT_EQ(machine.gpuenv("remove", prefix, {"tool"}).exit_code, 0);
  const auto empty = run_gpuenv({"env", "remove", "-p", prefix.string(), "-y"}, machine.env());
  ASSERT_EQ(empty.exit_code, 0) << empty.err << empty.out;
  EXPECT_FALSE(fs::exists(fs::symlink_status(prefix)));
}

TEST(InstallCli, RemoveAllRefusesWhatItMustNotDeleteAndChangesNothing) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  const auto before = gpuenv::testing::snapshot_prefix(prefix);

  const auto with_names = machine.gpuenv("remove", prefix, {"--all", "tool"});
  EXPECT_EQ(with_names.exit_code, 2);
  EXPECT_TRUE(contains(with_names.err, "takes no package names")) << with_names.err;

  const auto active = machine.gpuenv("remove", prefix, {"--all"}, {"CONDA_PREFIX=" + prefix.string()});
  EXPECT_EQ(active.exit_code, 2);
  EXPECT_TRUE(contains(active.err, "cannot remove the active environment")) << active.err;

  const auto base = run_gpuenv({"env", "remove", "-n", "base", "-y"},
                               machine.env({"GPUENV_ROOT_PREFIX=" + prefix.string()}));
  EXPECT_EQ(base.exit_code, 2);
  EXPECT_TRUE(contains(base.err, "cannot remove the base environment")) << base.err;
  EXPECT_EQ(gpuenv::testing::snapshot_prefix(prefix), before);

  // A directory that is not an environment keeps everything in it.
  const auto plain = machine / "plain";
  gpuenv::testing::write_text_file(plain / "data.txt", "keep\n");
  const auto not_one = machine.gpuenv("remove", plain, {"--all"});
  EXPECT_EQ(not_one.exit_code, 1);
  EXPECT_TRUE(contains(not_one.err, "is not an environment")) << not_one.err;
  EXPECT_EQ(read_file(plain / "data.txt"), "keep\n");

  // A frozen environment (CEP 22), even one with no package left.
  ASSERT_EQ(machine.gpuenv("remove", prefix, {"tool"}).exit_code, 0);
  gpuenv::testing::write_text_file(prefix / "conda-meta/frozen", R"({"message": "shared by the lab"})");
  const auto frozen = machine.gpuenv("remove", prefix, {"--all"});
  EXPECT_EQ(frozen.exit_code, 1);
  EXPECT_TRUE(contains(frozen.err, "is frozen (CEP 22)")) << frozen.err;
  EXPECT_TRUE(fs::exists(prefix / "conda-meta/frozen"));
  ASSERT_EQ(machine.gpuenv("remove", prefix, {"--all", "--override-frozen"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(prefix));

  const auto home = machine / "home";
  fs::create_directories(home / "conda-meta");
  const auto home_removal = machine.gpuenv("remove", home, {"--all"});
  EXPECT_EQ(home_removal.exit_code, 2);
  EXPECT_TRUE(contains(home_removal.err, "refusing to delete")) << home_removal.err;
  EXPECT_TRUE(fs::is_directory(home / "conda-meta"));
}

// conda env list: base when it is an environment, the named environments
// (directories with conda-meta/ in the envs directories), '*' on the active.
TEST(InstallCli, EnvListShowsTheNamedEnvironmentsAndMarksTheActiveOne) {
  InstallCliMachine machine;
  const auto envs = machine / "root/envs";
  for (const char* name : {"beta", "alpha"}) {
    const auto created = run_gpuenv({"create", "-n", name, "-c", machine.channel(), "--override-channels", "-y", "tool"},
                                    machine.env());
    ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  }
  fs::create_directories(envs / "not-an-environment");
  const auto listed = run_gpuenv({"env", "list"}, machine.env({"CONDA_PREFIX=" + (envs / "beta").string()}));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out, "# conda environments:\n#\nalpha     " + (envs / "alpha").string() + "\nbeta   *  " +
                            (envs / "beta").string() + "\n");

  // conda info --envs is the same list.
  const auto info = run_gpuenv({"info", "--envs"}, machine.env({"CONDA_PREFIX=" + (envs / "beta").string()}));
  EXPECT_EQ(info.out, listed.out);

  ASSERT_EQ(run_gpuenv({"env", "remove", "-n", "alpha", "-y"}, machine.env()).exit_code, 0);
  const auto json = run_gpuenv({"env", "list", "--json"}, machine.env());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(parse_json(json)["envs"], nlohmann::json::array({(envs / "beta").string()})) << json.out;
}

// conda clean: package files and the entries no environment links go; an
// environment's entries and the environment itself stay usable.
TEST(InstallCli, CleanRemovesPackageFilesAndUnusedPackagesOnly) {
  InstallCliMachine machine;
  const auto pkgs = machine / "root/pkgs";
  ASSERT_EQ(machine.gpuenv("create", machine / "kept", {"app"}).exit_code, 0);
  ASSERT_EQ(machine.gpuenv("create", machine / "gone", {"tool"}).exit_code, 0);
  ASSERT_EQ(run_gpuenv({"env", "remove", "-p", (machine / "gone").string(), "-y"}, machine.env()).exit_code, 0);

  const auto nothing_named = run_gpuenv({"clean"}, machine.env());
  EXPECT_EQ(nothing_named.exit_code, 2);
  EXPECT_TRUE(contains(nothing_named.err, "--all")) << nothing_named.err;

  const auto dry = run_gpuenv({"clean", "--all", "--dry-run"}, machine.env());
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_TRUE(contains(dry.out, (pkgs / "tool-1.0-0").string())) << dry.out;
  EXPECT_FALSE(contains(dry.out, (pkgs / "app-1.0-h1_0").string() + " ")) << dry.out;
  EXPECT_TRUE(fs::is_directory(pkgs / "tool-1.0-0"));

  const auto cleaned = run_gpuenv({"clean", "--all", "--json"}, machine.env());
  ASSERT_EQ(cleaned.exit_code, 0) << cleaned.err;
  const auto report = parse_json(cleaned);
  EXPECT_EQ(report["packages"]["files"], nlohmann::json::array({(pkgs / "tool-1.0-0").string()})) << cleaned.out;
  EXPECT_FALSE(fs::exists(pkgs / "tool-1.0-0"));
  for (const auto& entry : fs::directory_iterator(pkgs)) {
    const auto name = entry.path().filename().string();
    EXPECT_FALSE(name.ends_with(".conda") || name.ends_with(".tar.bz2")) << name;
  }
  EXPECT_TRUE(fs::is_directory(pkgs / "app-1.0-h1_0"));
  EXPECT_TRUE(fs::is_directory(pkgs / "libdep-2.0-h0_0"));
  const auto listed = run_gpuenv({"list", "-p", (machine / "kept").string()}, machine.env());
  EXPECT_TRUE(contains(listed.out, "libdep")) << listed.out << listed.err;
  // Its entries still serve a new environment.
  ASSERT_EQ(machine.gpuenv("create", machine / "again", {"app"}).exit_code, 0);
}

// conda create --clone: the same builds in a new prefix, its own prefix
// written into the files that carry a placeholder; nothing solved.
TEST(InstallCli, CreateCloneInstallsTheSameBuildsIntoTheNewPrefix) {
  InstallCliMachine machine;
  const auto source = machine / "source";
  const auto created = machine.gpuenv("create", source, {"app", "tool"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_TRUE(contains(created.out, " to download)") && !contains(created.out, "nothing to download")) << created.out;
  const auto before = gpuenv::testing::snapshot_prefix(source);
  const auto copy = machine / "copy";
  const auto cloned = run_gpuenv({"create", "-p", copy.string(), "--clone", source.string(), "-y"}, machine.env());
  ASSERT_EQ(cloned.exit_code, 0) << cloned.err << cloned.out;
  EXPECT_EQ(installed_dists(copy), installed_dists(source));
  // Every package is in the cache: the plan says so instead of a size.
  EXPECT_TRUE(contains(cloned.out, "(nothing to download)")) << cloned.out;
  EXPECT_EQ(read_file(copy / "share/libdep/config.txt"), "prefix=" + copy.string() + "\nversion=2.0\n");
  EXPECT_EQ(gpuenv::testing::snapshot_prefix(source), before);

  const auto with_specs =
      run_gpuenv({"create", "-p", (machine / "other").string(), "--clone", source.string(), "-y", "tool"},
                 machine.env());
  EXPECT_EQ(with_specs.exit_code, 2);
  EXPECT_TRUE(contains(with_specs.err, "--clone copies a whole environment")) << with_specs.err;
  const auto missing = run_gpuenv(
      {"create", "-p", (machine / "other").string(), "--clone", (machine / "nowhere").string(), "-y"}, machine.env());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(contains(missing.err, "does not exist")) << missing.err;
  const auto onto_existing = run_gpuenv({"create", "-p", copy.string(), "--clone", source.string(), "-y"}, machine.env());
  EXPECT_NE(onto_existing.exit_code, 0);
  EXPECT_FALSE(fs::exists(machine / "other"));
}

TEST(InstallCli, RemovingWhatIsNotInstalledIsAnErrorNamingIt) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  const auto before = gpuenv::testing::snapshot_prefix(prefix);
  const auto result = machine.gpuenv("remove", prefix, {"tool", "other"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "cannot remove other: it is not installed in " + prefix.string())) << result.err;
  EXPECT_EQ(gpuenv::testing::snapshot_prefix(prefix), before);
}

TEST(InstallCli, ChangingWhatIsNotAnEnvironmentSaysSo) {
  InstallCliMachine machine;
  const auto result = machine.gpuenv("install", machine / "nowhere", {"tool"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "is not an environment")) << result.err;
  EXPECT_TRUE(contains(result.err, "gpuenv create")) << result.err;
  EXPECT_FALSE(fs::exists(machine / "nowhere"));
}

TEST(InstallCli, CreateRefusesExistingEnvironmentsAndNonEmptyDirectories) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  const auto again = machine.gpuenv("create", prefix, {"other"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_TRUE(contains(again.err, "is already an environment")) << again.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"tool-1.0-0"}));

  fs::create_directories(machine / "data");
  gpuenv::testing::write_text_file(machine / "data/notes.txt", "mine\n");
  const auto over_data = machine.gpuenv("create", machine / "data", {"tool"});
  EXPECT_EQ(over_data.exit_code, 1);
  EXPECT_TRUE(contains(over_data.err, "not empty and not an environment")) << over_data.err;
  EXPECT_FALSE(fs::exists(machine / "data/conda-meta"));

  fs::create_directories(machine / "empty");
  EXPECT_EQ(machine.gpuenv("create", machine / "empty", {"tool"}).exit_code, 0);
}

TEST(InstallCli, WithoutATerminalItAsksForYes) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  const auto result = run_gpuenv({"create", "-p", prefix.string(), "-c", machine.channel(), "--override-channels",
                                  "tool"},
                                 machine.env());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "add -y")) << result.err;
  EXPECT_TRUE(contains(result.out, "tool")) << result.out;  // the plan was shown
  EXPECT_FALSE(fs::exists(prefix));
  // CONDA_ALWAYS_YES answers for the user, as in conda.
  const auto yes = run_gpuenv({"create", "-p", prefix.string(), "-c", machine.channel(), "--override-channels",
                               "tool"},
                              machine.env({"CONDA_ALWAYS_YES=true"}));
  EXPECT_EQ(yes.exit_code, 0) << yes.err;
  // So does the .condarc key.
  const auto condarc = machine / "condarc.yml";
  std::ofstream(condarc) << "always_yes: true\n";
  const auto keyed = run_gpuenv({"create", "-p", (machine / "env2").string(), "-c", machine.channel(),
                                 "--override-channels", "tool"},
                                machine.env({"CONDARC=" + condarc.string()}));
  EXPECT_EQ(keyed.exit_code, 0) << keyed.err;
  EXPECT_TRUE(fs::exists(machine / "env2" / "conda-meta"));
}

// On a terminal it asks; an empty answer is yes, as in conda.
TEST(InstallCli, OnATerminalItAsksFirst) {
  if (::system("script --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "script(1) is not installed";
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  const auto create_answering = [&](const std::string& answer) {
    const auto command = gpuenv::testing::shell_quote(GPUENV_BINARY) + " create -p " +
                         gpuenv::testing::shell_quote(prefix.string()) + " -c " +
                         gpuenv::testing::shell_quote(machine.channel()) + " --override-channels tool";
    return gpuenv::testing::run_program(
        "sh", {"-c", "printf '" + answer + "\\n' | script -qec " + gpuenv::testing::shell_quote(command) + " /dev/null"},
        machine.env());
  };
  const auto declined = create_answering("n");
  EXPECT_EQ(declined.exit_code, 1) << declined.out << declined.err;
  EXPECT_TRUE(contains(declined.out, "Proceed ([y]/n)?")) << declined.out;
  EXPECT_TRUE(contains(declined.out, "nothing was changed")) << declined.out;
  EXPECT_FALSE(fs::exists(prefix));

  const auto accepted = create_answering("");
  EXPECT_EQ(accepted.exit_code, 0) << accepted.out << accepted.err;
  EXPECT_TRUE(contains(accepted.out, "Linked 1 package")) << accepted.out;
  EXPECT_EQ(installed_dists(prefix), (Dists{"tool-1.0-0"}));
}

TEST(InstallCli, DryRunChangesNothing) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  const auto before = gpuenv::testing::snapshot_prefix(prefix);
  const auto result = machine.gpuenv("install", prefix, {"--dry-run", "app"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "Dry run: nothing was changed")) << result.out;
  EXPECT_EQ(gpuenv::testing::snapshot_prefix(prefix), before);
}

TEST(InstallCli, JsonReportsCondasShape) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  const auto created = machine.gpuenv("create", prefix, {"--json", "app"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const auto document = parse_json(created);
  EXPECT_EQ(document["success"], true);
  EXPECT_FALSE(document.contains("dry_run"));
  EXPECT_EQ(document["prefix"], prefix.string());
  EXPECT_EQ(document["actions"]["PREFIX"], prefix.string());
  EXPECT_EQ(gpuenv::testing::linked(document), (Dists{"libdep 2.0 h0_0", "app 1.0 h1_0"}));
  EXPECT_TRUE(document["actions"]["UNLINK"].empty());
  EXPECT_TRUE(document["clobbers"].empty());

  const auto removed = machine.gpuenv("remove", prefix, {"--json", "app"});
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  const auto removal = parse_json(removed);
  ASSERT_EQ(removal["actions"]["UNLINK"].size(), 1u) << removal.dump();
  EXPECT_EQ(removal["actions"]["UNLINK"][0]["name"], "app");
  // What app needed stays, as in conda.
  EXPECT_EQ(installed_dists(prefix), (Dists{"libdep-2.0-h0_0"}));

  const auto missing = machine.gpuenv("remove", prefix, {"--json", "app"});
  EXPECT_EQ(missing.exit_code, 1);
  const auto failure = parse_json(missing);
  EXPECT_EQ(failure["success"], false);
  EXPECT_TRUE(contains(failure["error"].get<std::string>(), "not installed"));
}

TEST(InstallCli, NamedEnvironmentsLiveUnderTheRootPrefix) {
  InstallCliMachine machine;
  const auto result = run_gpuenv({"create", "-n", "analysis", "-c", machine.channel(), "--override-channels", "-y",
                                  "tool"},
                                 machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // SolveCliMachine sets GPUENV_ROOT_PREFIX=<root>/root.
  const auto prefix = machine / "root/envs/analysis";
  EXPECT_EQ(installed_dists(prefix), (Dists{"tool-1.0-0"}));
  EXPECT_TRUE(fs::exists(prefix / "bin/tool"));
  // The package cache is the root prefix's too.
  EXPECT_TRUE(fs::exists(machine / "root/pkgs/tool-1.0-0.conda"));
  EXPECT_TRUE(fs::exists(machine / "root/pkgs/tool-1.0-0/info/repodata_record.json"));

  const auto install = run_gpuenv({"install", "-n", "analysis", "-c", machine.channel(), "--override-channels",
                                   "-y", "other"},
                                  machine.env());
  ASSERT_EQ(install.exit_code, 0) << install.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"other-1.0-0", "tool-1.0-0"}));
  // The active environment when -p/-n is not given.
  const auto active = run_gpuenv({"remove", "-y", "other"}, machine.env({"CONDA_PREFIX=" + prefix.string()}));
  ASSERT_EQ(active.exit_code, 0) << active.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"tool-1.0-0"}));
}

TEST(InstallCli, ACorruptedDownloadIsRefusedAndNothingIsLinked) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  const auto before = gpuenv::testing::snapshot_prefix(prefix);
  // The channel now announces another sha256 for `other` than its file has.
  const auto repodata_path = machine.channel_dir() / "linux-64/repodata.json";
  auto repodata = read_json_file(repodata_path);
  auto& entry = repodata["packages.conda"]["other-1.0-0.conda"];
  const auto actual = entry["sha256"].get<std::string>();
  const std::string announced(64, 'a');
  entry["sha256"] = announced;
  gpuenv::testing::write_text_file(repodata_path, repodata.dump(1));

  const auto result = machine.gpuenv("install", prefix, {"other", "app"});
  EXPECT_EQ(result.exit_code, 1) << result.out;
  EXPECT_TRUE(contains(result.err, machine.channel() + "/linux-64/other-1.0-0.conda")) << result.err;
  EXPECT_TRUE(contains(result.err, announced)) << result.err;
  EXPECT_TRUE(contains(result.err, actual)) << result.err;
  EXPECT_EQ(gpuenv::testing::snapshot_prefix(prefix), before)
      << gpuenv::testing::describe_difference(gpuenv::testing::snapshot_prefix(prefix), before);
  EXPECT_FALSE(fs::exists(machine / "root/pkgs/other-1.0-0.conda"));
  EXPECT_FALSE(fs::exists(machine / "root/pkgs/other-1.0-0"));
}

TEST(InstallCli, TwoConcurrentInstallsIntoOnePrefixBothLand) {
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  // Both need `common`, which neither finds installed when it starts: the
  // second must solve against what the first installed.
  for (int round = 0; round < 3; ++round) {
    auto left = std::async(std::launch::async, [&] { return machine.gpuenv("install", prefix, {"left"}); });
    auto right = std::async(std::launch::async, [&] { return machine.gpuenv("install", prefix, {"right"}); });
    const auto left_result = left.get();
    const auto right_result = right.get();
    ASSERT_EQ(left_result.exit_code, 0) << left_result.err;
    ASSERT_EQ(right_result.exit_code, 0) << right_result.err;
    EXPECT_EQ(installed_dists(prefix), (Dists{"common-1.0-0", "left-1.0-0", "right-1.0-0", "tool-1.0-0"}));
    ASSERT_EQ(machine.gpuenv("remove", prefix, {"common"}).exit_code, 0);
    EXPECT_EQ(installed_dists(prefix), (Dists{"tool-1.0-0"}));
  }
}

TEST(InstallCli, InstallsFromAChannelServedOverHttp) {
  InstallCliMachine machine;
  gpuenv::testing::TestHttpServer server(machine / "served");
  const auto channel = server.url("/channel");
  gpuenv::testing::write_test_channel(machine / "served/channel", channel);
  const auto prefix = machine / "env";
  const auto result = run_gpuenv({"create", "-p", prefix.string(), "-c", channel, "--override-channels", "-y", "app"},
                                 machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0"}));
  EXPECT_EQ(read_json_file(prefix / "conda-meta/app-1.0-h1_0.json")["url"], channel + "/linux-64/app-1.0-h1_0.conda");
  EXPECT_EQ(server.requests_for("/channel/linux-64/app-1.0-h1_0.conda").size(), 1u);

  // A second environment of the same packages comes from the package cache.
  const auto warm = run_gpuenv({"create", "-p", (machine / "env2").string(), "-c", channel, "--override-channels",
                                "-y", "app"},
                               machine.env());
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_FALSE(contains(warm.out, "downloaded")) << warm.out;
  EXPECT_EQ(server.requests_for("/channel/linux-64/app-1.0-h1_0.conda").size(), 1u);
  EXPECT_EQ(read_file(machine / "env2/bin/app"), "#!/bin/sh\necho app from " + (machine / "env2").string() + "\n");
}

TEST(InstallCli, AFailedDownloadLeavesThePrefixAsItWas) {
  InstallCliMachine machine;
  gpuenv::testing::TestHttpServer server(machine / "served");
  const auto channel = server.url("/channel");
  gpuenv::testing::write_test_channel(machine / "served/channel", channel);
  const auto prefix = machine / "env";
  ASSERT_EQ(run_gpuenv({"create", "-p", prefix.string(), "-c", channel, "--override-channels", "-y", "tool"},
                       machine.env())
                .exit_code,
            0);
  const auto before = gpuenv::testing::snapshot_prefix(prefix);
  fs::remove(machine / "served/channel/linux-64/app-1.0-h1_0.conda");
  const auto result =
      run_gpuenv({"install", "-p", prefix.string(), "-c", channel, "--override-channels", "-y", "app"}, machine.env());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, channel + "/linux-64/app-1.0-h1_0.conda")) << result.err;
  EXPECT_TRUE(contains(result.err, "left as it was")) << result.err;
  EXPECT_EQ(gpuenv::testing::snapshot_prefix(prefix), before);
}

// The packages conda-build made for conda's own tests.
TEST(InstallCli, InstallsUpdatesAndRemovesCondaBuildsTestPackages) {
  InstallCliMachine machine;
  const auto recipes = gpuenv::testing::test_channel("channels/conda-test-recipes");
  const auto prefix = machine / "env";
  const auto gpuenv = [&](std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"-p", prefix.string(), "-c", recipes, "--override-channels", "-y"});
    if (args[0] == "remove") args.erase(args.begin() + 3, args.begin() + 6);
    return run_gpuenv(args, machine.env());
  };
  auto result = gpuenv({"create", "dependent=1.0", "dependency=1.0"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"dependency-1.0-0", "dependent-1.0-0"}));

  result = gpuenv({"update", "dependent", "dependency"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"dependency-2.0-0", "dependent-2.0-0"}));

  result = gpuenv({"install", "clobber-a", "clobber-b"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Both packages ship the same file: reported, not silent.
  EXPECT_TRUE(contains(result.err, "clobbered")) << result.err;

  result = gpuenv({"install", "python", "sample_noarch_python"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Where the python record says its site-packages is (CEP 17).
  const auto python = read_json_file(prefix / "conda-meta/python-3.99.99-0.json");
  const auto site_packages = python.value("python_site_packages_path", "lib/python3.99/site-packages");
  const auto record = read_json_file(prefix / "conda-meta/sample_noarch_python-1.0-py_0.json");
  EXPECT_EQ(record["files"], nlohmann::json::array({site_packages + "/sample.py"}));
  EXPECT_TRUE(fs::exists(prefix / site_packages / "sample.py"));

  result = gpuenv({"remove", "dependency"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto left = installed_dists(prefix);
  EXPECT_EQ(std::count_if(left.begin(), left.end(), [](const auto& d) { return d.starts_with("dependen"); }), 0)
      << testing::PrintToString(left);
}

// On a terminal the progress line is drawn on stderr; `script` gives the
// command one. The test holds the package's cache lock for a while (as
// another gpuenv fetching it would), so that the line has time to show.
TEST(InstallCli, DrawsProgressOnlyOnATerminal) {
  if (::system("script --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "script(1) is not installed";
  InstallCliMachine machine;
  const auto prefix = machine / "env";
  ASSERT_EQ(machine.gpuenv("create", prefix, {"other"}).exit_code, 0);
  fs::create_directories(machine / "root/pkgs/.gpuenv-locks");
  // O_CLOEXEC: the gpuenv started below must not inherit (and so hold) the lock.
  const int lock = ::open((machine / "root/pkgs/.gpuenv-locks/tool-1.0-0.lock").c_str(),
                          O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);
  auto release = std::async(std::launch::async, [lock] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ::close(lock);
  });
  std::string command;
  for (const auto& assignment : machine.env()) {
    if (assignment.starts_with("-")) command += "unset " + assignment.substr(1) + "; ";
    else command += "export " + gpuenv::testing::shell_quote(assignment) + "; ";
  }
  command += gpuenv::testing::shell_quote(GPUENV_BINARY) + " install -y -p " +
             gpuenv::testing::shell_quote(prefix.string()) + " -c " + gpuenv::testing::shell_quote(machine.channel()) +
             " --override-channels tool";
  const auto result = gpuenv::testing::run_program("script", {"-qfec", command, "/dev/null"});
  release.get();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "Downloading 0/1")) << result.out;
  EXPECT_TRUE(contains(result.out, "Linking 0/1")) << result.out;
  EXPECT_TRUE(contains(result.out, "\r\033[K")) << result.out;
  EXPECT_TRUE(contains(result.out, "Linked 1 package")) << result.out;

  // Without a terminal: no progress and no control sequences.
  const auto plain = machine.gpuenv("install", prefix, {"app"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(contains(plain.err, "Linking")) << plain.err;
  EXPECT_FALSE(contains(plain.err + plain.out, "\033[K"));
}

}  // namespace
