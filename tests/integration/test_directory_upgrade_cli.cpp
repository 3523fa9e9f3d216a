// `gpuenv update` across versions that turn a directory into a file and
// back, as rattler's clobber-directory-upgrade test packages do (0.1.0
// ships xbin/content.txt; 0.2.0 ships bin/content.txt and a file xbin),
// and the same update killed (SIGKILL) at each of its steps: the next
// gpuenv call finds the whole old or the whole new environment.
#include <gtest/gtest.h>

#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::ChannelBuilder;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::contains;
using gpuenv::testing::describe_difference;
using gpuenv::testing::file_url;
using gpuenv::testing::installed_dists;
using gpuenv::testing::PackageBuilder;
using gpuenv::testing::PrefixSnapshot;
using gpuenv::testing::snapshot_prefix;

constexpr int kKilled = 128 + 9;

class DirectoryUpgradeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ChannelBuilder channel(channel_dir(), file_url(channel_dir()));
    channel.add(PackageBuilder("clobber-directory-upgrade", "0.1.0").file("xbin/content.txt", "0.1.0\n"));
    channel.add(PackageBuilder("clobber-directory-upgrade", "0.2.0")
                    .file("bin/content.txt", "0.2.0\n")
                    .file("xbin", "a file now\n"));
    // The reverse: a file that became a directory.
    channel.add(PackageBuilder("clobber-file-upgrade", "0.1.0").file("ybin", "a file\n"));
    channel.add(PackageBuilder("clobber-file-upgrade", "0.2.0").file("ybin/content.txt", "0.2.0\n"));
    channel.add(PackageBuilder("neighbour", "1.0").file("xbin/neighbour.txt", "not yours\n"));
    fs::create_directories(channel_dir() / "noarch");
    gpuenv::testing::write_text_file(channel_dir() / "noarch/repodata.json",
                                     R"({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}})");
  }

  fs::path channel_dir() const { return machine_ / "channel"; }

  CommandOutput gpuenv(const std::string& command, const fs::path& prefix, const std::vector<std::string>& args,
                       const std::vector<std::string>& extra_env = {}) const {
    std::vector<std::string> all = {command, "-p", prefix.string(), "-c", file_url(channel_dir()),
                                    "--override-channels", "-y"};
    all.insert(all.end(), args.begin(), args.end());
    return gpuenv::testing::run_gpuenv(all, machine_.env(extra_env));
  }

  PrefixSnapshot create_old(const fs::path& prefix) {
    const auto created = gpuenv("create", prefix, {"clobber-directory-upgrade=0.1.0"});
    EXPECT_EQ(created.exit_code, 0) << created.err;
    return snapshot_prefix(prefix);
  }

  CommandOutput update(const fs::path& prefix, const std::vector<std::string>& extra_env = {}) const {
    return gpuenv("update", prefix, {"clobber-directory-upgrade"}, extra_env);
  }

  gpuenv::testing::SolveCliMachine machine_;
};

TEST_F(DirectoryUpgradeCli, UpdateReplacesADirectoryWithAFile) {
  const auto prefix = machine_ / "env";
  create_old(prefix);
  const auto updated = update(prefix);
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_EQ(gpuenv::testing::read_file(prefix / "xbin"), "a file now\n");
  EXPECT_EQ(gpuenv::testing::read_file(prefix / "bin/content.txt"), "0.2.0\n");
  EXPECT_EQ(installed_dists(prefix), (std::vector<std::string>{"clobber-directory-upgrade-0.2.0-0"}));
}

TEST_F(DirectoryUpgradeCli, UpdateReplacesAFileWithADirectory) {
  const auto prefix = machine_ / "env";
  ASSERT_EQ(gpuenv("create", prefix, {"clobber-file-upgrade=0.1.0"}).exit_code, 0);
  const auto updated = gpuenv("update", prefix, {"clobber-file-upgrade"});
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_EQ(gpuenv::testing::read_file(prefix / "ybin/content.txt"), "0.2.0\n");
}

TEST_F(DirectoryUpgradeCli, ADirectoryAnotherPackageStillUsesIsRefusedAndNothingChanges) {
  const auto prefix = machine_ / "env";
  ASSERT_EQ(gpuenv("create", prefix, {"clobber-directory-upgrade=0.1.0", "neighbour"}).exit_code, 0);
  const auto before = snapshot_prefix(prefix);
  const auto refused = update(prefix);
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_TRUE(contains(refused.err, "clobber-directory-upgrade-0.2.0-0")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "xbin/neighbour.txt (neighbour-1.0-0)")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "left as it was")) << refused.err;
  const auto after = snapshot_prefix(prefix);
  EXPECT_EQ(after, before) << describe_difference(after, before);
}

TEST_F(DirectoryUpgradeCli, KilledAtEachStepTheNextCallFindsTheOldOrTheNewEnvironment) {
  const auto before = create_old(machine_ / "old0");
  create_old(machine_ / "new0");
  ASSERT_EQ(update(machine_ / "new0").exit_code, 0);
  const auto after = snapshot_prefix(machine_ / "new0");
  ASSERT_NE(before, after);

  const std::vector<std::pair<std::string, bool>> steps = {
      {"GPUENV_TEST_CRASH_AT=after_unlink", false},
      {"GPUENV_TEST_CRASH_AT=after_prune", false},
      {"GPUENV_TEST_CRASH_AFTER_LINKED_FILES=1", false},
      {"GPUENV_TEST_CRASH_AFTER_LINKED_FILES=2", false},
      {"GPUENV_TEST_CRASH_AT=before_commit", false},
      {"GPUENV_TEST_CRASH_AT=after_commit", true},
  };
  for (const auto& [crash, completes] : steps) {
    SCOPED_TRACE(crash);
    const auto prefix = machine_ / "kill";  // as long as old0 and new0
    fs::remove_all(prefix);
    create_old(prefix);
    const auto killed = update(prefix, {crash});
    ASSERT_EQ(killed.exit_code, kKilled) << killed.out << killed.err;
    ASSERT_TRUE(fs::exists(prefix / "conda-meta/.gpuenv-transaction/journal"));
    const auto next = gpuenv("install", prefix, {"--dry-run", "clobber-directory-upgrade"});
    ASSERT_EQ(next.exit_code, 0) << next.err;
    EXPECT_TRUE(contains(next.err, completes ? "completed" : "rolled back")) << next.err;
    const auto state = snapshot_prefix(prefix);
    const auto& expected = completes ? after : before;
    EXPECT_EQ(state, expected) << describe_difference(state, expected);
  }
}

}  // namespace
