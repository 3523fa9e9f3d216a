// `gpuenv create/install --no-deps` and `--only-deps`, as conda has them:
// --no-deps installs only the requested packages, --only-deps only what
// they need; conda-meta/history records the request as conda writes it
// (the specs as asked, the packages really linked).
#include <gtest/gtest.h>

#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::contains;
using gpuenv::testing::installed_dists;
using gpuenv::testing::InstallCliMachine;
using gpuenv::testing::read_file;
using Dists = std::vector<std::string>;

class DepsModifiersCli : public ::testing::Test {
 protected:
  std::string history(const fs::path& prefix) const { return read_file(prefix / "conda-meta/history"); }
  std::string linked_line(const std::string& dist) const {
    return "+" + machine_.channel() + "/linux-64::" + dist + "\n";
  }

  InstallCliMachine machine_;
};

TEST_F(DepsModifiersCli, CreateNoDepsInstallsOnlyTheRequestedPackages) {
  const auto prefix = machine_ / "env";
  const auto created = machine_.gpuenv("create", prefix, {"--no-deps", "app", "left"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "left-1.0-0"}));
  const auto text = history(prefix);
  EXPECT_TRUE(contains(text, linked_line("app-1.0-h1_0"))) << text;
  EXPECT_FALSE(contains(text, "libdep")) << text;
  EXPECT_FALSE(contains(text, "common")) << text;
  EXPECT_TRUE(contains(text, "# update specs: ['app', 'left']")) << text;
  // The record says which spec asked for it, as without --no-deps.
  const auto record = gpuenv::testing::read_json_file(prefix / "conda-meta/app-1.0-h1_0.json");
  EXPECT_EQ(record["requested_spec"], "app");
}

TEST_F(DepsModifiersCli, CreateOnlyDepsInstallsOnlyWhatTheRequestNeeds) {
  const auto prefix = machine_ / "env";
  const auto created = machine_.gpuenv("create", prefix, {"--only-deps", "app", "left", "right"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"common-1.0-0", "libdep-2.0-h0_0"}));
  const auto text = history(prefix);
  EXPECT_TRUE(contains(text, linked_line("libdep-2.0-h0_0"))) << text;
  EXPECT_TRUE(contains(text, linked_line("common-1.0-0"))) << text;
  EXPECT_FALSE(contains(text, "::app-")) << text;
  // conda records the specs as the user gave them, also with --only-deps.
  EXPECT_TRUE(contains(text, "# update specs: ['app', 'left', 'right']")) << text;
}

TEST_F(DepsModifiersCli, OnlyDepsKeepsARequestedPackageAnotherRequestedOneNeeds) {
  const auto prefix = machine_ / "env";
  const auto created = machine_.gpuenv("create", prefix, {"--only-deps", "libdep=1.0", "app"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"libdep-1.0-h0_0"}));
}

TEST_F(DepsModifiersCli, InstallOnlyDepsThenALaterInstallLeavesThePackageOut) {
  // conda's test_create_only_deps_flag: what --only-deps left out is not
  // pulled in by the next install, though the history names it.
  const auto prefix = machine_ / "env";
  ASSERT_EQ(machine_.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  const auto installed = machine_.gpuenv("install", prefix, {"--only-deps", "app"});
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"libdep-2.0-h0_0", "tool-1.0-0"}));
  const auto later = machine_.gpuenv("install", prefix, {"other"});
  ASSERT_EQ(later.exit_code, 0) << later.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"libdep-2.0-h0_0", "other-1.0-0", "tool-1.0-0"}));
}

TEST_F(DepsModifiersCli, InstallNoDepsAddsOnlyThePackageAndChangesNothingElse) {
  const auto prefix = machine_ / "env";
  ASSERT_EQ(machine_.gpuenv("create", prefix, {"tool"}).exit_code, 0);
  const auto dry = machine_.gpuenv("install", prefix, {"--no-deps", "--dry-run", "--json", "bulk"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(gpuenv::testing::linked(gpuenv::testing::parse_json(dry)), (Dists{"bulk 1.0 0"}));
  const auto installed = machine_.gpuenv("install", prefix, {"--no-deps", "bulk"});
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  EXPECT_EQ(installed_dists(prefix), (Dists{"bulk-1.0-0", "tool-1.0-0"}));
  const auto text = history(prefix);
  EXPECT_TRUE(contains(text, linked_line("bulk-1.0-0") + "# update specs: ['bulk']\n")) << text;
}

TEST_F(DepsModifiersCli, NoDepsAndOnlyDepsTogetherAreRefused) {
  const auto prefix = machine_ / "env";
  const auto refused = machine_.gpuenv("create", prefix, {"--no-deps", "--only-deps", "app"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(contains(refused.err, "--no-deps")) << refused.err;
  EXPECT_FALSE(fs::exists(prefix / "conda-meta"));
}

TEST_F(DepsModifiersCli, AnExplicitFileWithADepsModifierIsRefused) {
  const auto prefix = machine_ / "env";
  const auto file = machine_ / "explicit.txt";
  gpuenv::testing::write_text_file(file, "@EXPLICIT\n" + machine_.channel() + "/linux-64/tool-1.0-0.conda\n");
  const auto refused = machine_.gpuenv("create", prefix, {"--only-deps", "--file", file.string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(contains(refused.err, "explicit")) << refused.err;
}

}  // namespace
