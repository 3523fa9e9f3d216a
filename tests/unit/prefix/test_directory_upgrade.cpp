// Updates where a path changes kind between two versions of a package, as
// rattler's clobber-directory-upgrade test packages do: 0.1.0 ships
// xbin/content.txt, 0.2.0 ships bin/content.txt and a file xbin. Like conda
// and rattler, the old version's files go, the directories they leave
// empty are pruned, then the new version is linked; a crash at any step
// still ends in the whole old or the whole new installation.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>

#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/prefix/transaction_journal.hpp"
#include "prefix_fixture.hpp"
#include "support/run_command.hpp"

namespace gpuenv::prefix {
namespace {

using testing::PackageBuilder;
using testing::PrefixSnapshot;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class DirectoryUpgradeTest : public testing::PrefixTest {
 protected:
  // rattler's clobber-directory-upgrade, 0.1.0 and 0.2.0.
  specs::PackageRecord directory_version() {
    return channel().add(PackageBuilder("clobber-directory-upgrade", "0.1.0")
                             .file("xbin/content.txt", "0.1.0 content\n"));
  }
  specs::PackageRecord file_version() {
    return channel().add(PackageBuilder("clobber-directory-upgrade", "0.2.0")
                             .file("bin/content.txt", "0.2.0 content\n")
                             .file("xbin", "now a file\n"));
  }

  std::string update_failure(const specs::PackageRecord& from, const specs::PackageRecord& to) {
    try {
      install({to}, {from});
    } catch (const PrefixError& error) {
      return error.what();
    }
    return {};
  }
};

TEST_F(DirectoryUpgradeTest, ADirectoryThatBecameAFileIsReplaced) {
  const auto old_version = directory_version();
  install({old_version});
  ASSERT_TRUE(std::filesystem::is_directory(prefix() / "xbin"));

  install({file_version()}, {old_version});
  EXPECT_TRUE(std::filesystem::is_regular_file(prefix() / "xbin"));
  EXPECT_EQ(testing::read_file(prefix() / "xbin"), "now a file\n");
  EXPECT_EQ(testing::read_file(prefix() / "bin/content.txt"), "0.2.0 content\n");
  EXPECT_TRUE(std::filesystem::exists(prefix() / "conda-meta/clobber-directory-upgrade-0.2.0-0.json"));
  EXPECT_FALSE(std::filesystem::exists(prefix() / "conda-meta/clobber-directory-upgrade-0.1.0-0.json"));
  EXPECT_FALSE(std::filesystem::exists(TransactionJournal::directory(prefix())));
}

TEST_F(DirectoryUpgradeTest, AFileThatBecameADirectoryIsReplaced) {
  const auto old_version = file_version();
  install({old_version});
  install({directory_version()}, {old_version});
  EXPECT_TRUE(std::filesystem::is_directory(prefix() / "xbin"));
  EXPECT_EQ(testing::read_file(prefix() / "xbin/content.txt"), "0.1.0 content\n");
  // bin/ held only the old version's file.
  EXPECT_FALSE(std::filesystem::exists(prefix() / "bin"));
}

TEST_F(DirectoryUpgradeTest, NestedDirectoriesLeftEmptyArePrunedDeepestFirst) {
  const auto old_version = channel().add(PackageBuilder("deep", "1.0")
                                             .file("tree/a/b/c/leaf.txt", "leaf\n")
                                             .file("tree/a/other.txt", "other\n"));
  install({old_version});
  install({channel().add(PackageBuilder("deep", "2.0").file("tree/a", "a file now\n"))}, {old_version});
  EXPECT_TRUE(std::filesystem::is_regular_file(prefix() / "tree/a"));
}

TEST_F(DirectoryUpgradeTest, ADirectoryStillHoldingAnotherPackagesFilesIsRefused) {
  const auto old_version = directory_version();
  install({old_version, channel().add(PackageBuilder("neighbour", "1.0").file("xbin/other.txt", "mine\n"))});
  const PrefixSnapshot before = testing::snapshot_prefix(prefix());

  const auto message = update_failure(old_version, file_version());
  ASSERT_FALSE(message.empty()) << "the update should have been refused";
  EXPECT_TRUE(has(message, "clobber-directory-upgrade-0.2.0-0")) << message;
  EXPECT_TRUE(has(message, "xbin/other.txt")) << message;
  EXPECT_TRUE(has(message, "neighbour-1.0-0")) << message;
  EXPECT_TRUE(has(message, "was left as it was")) << message;
  const auto after = testing::snapshot_prefix(prefix());
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
}

TEST_F(DirectoryUpgradeTest, ADirectoryHoldingAFileNoPackageOwnsIsRefused) {
  const auto old_version = directory_version();
  install({old_version});
  testing::write_text_file(prefix() / "xbin/notes.txt", "the user's\n");
  const PrefixSnapshot before = testing::snapshot_prefix(prefix());

  const auto message = update_failure(old_version, file_version());
  ASSERT_FALSE(message.empty()) << "the update should have been refused";
  EXPECT_TRUE(has(message, "xbin/notes.txt")) << message;
  EXPECT_TRUE(has(message, "no package owns")) << message;
  const auto after = testing::snapshot_prefix(prefix());
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
}

// The update killed (SIGKILL) at each of its steps: the next call on the
// prefix settles it into exactly the old or exactly the new installation.
class DirectoryUpgradeCrashTest : public DirectoryUpgradeTest {
 protected:
  void SetUp() override {
    // Two directories to prune (xbin/deep too) and three files to link, so
    // that kills land between prunes' undo steps and between files.
    old_ = channel().add(PackageBuilder("clobber-directory-upgrade", "0.1.0")
                             .file("xbin/content.txt", "0.1.0 content\n")
                             .file("xbin/deep/more.txt", "deeper\n"));
    new_ = channel().add(PackageBuilder("clobber-directory-upgrade", "0.2.0")
                             .file("bin/content.txt", "0.2.0 content\n")
                             .file("xbin", "now a file\n"));
    install_into(reference(), {old_}, {}, options());
    old_state_ = testing::snapshot_prefix(reference());
    install_into(reference(), {new_}, {old_}, options());
    new_state_ = testing::snapshot_prefix(reference());
    ASSERT_NE(old_state_, new_state_);
  }

  std::filesystem::path reference() const { return scratch() / "ref"; }
  std::filesystem::path victim(int i) const {  // as long as "ref"
    return scratch() / ("v" + std::string(i < 10 ? "0" : "") + std::to_string(i));
  }

  // Kills the update at `hook`, recovers, and checks the state.
  void crash_and_recover(int i, const TestCrashHook& hook, bool expect_new, const std::string& what,
                         std::vector<specs::PackageRecord> link = {}) {
    SCOPED_TRACE(what);
    const auto target = victim(i);
    install_into(target, {old_}, {}, options());
    if (link.empty()) link = {new_};
    auto crash_options = options();
    crash_options.test_crash = hook;
    Transaction transaction;
    transaction.link = link;
    transaction.unlink = {old_};
    const auto outcome = testing::run_in_child([&] { apply_transaction(target, transaction, crash_options); });
    ASSERT_EQ(outcome.signal, SIGKILL) << "the hook did not fire";
    EXPECT_EQ(recover_prefix(target), expect_new ? RecoveryOutcome::completed : RecoveryOutcome::rolled_back);
    const auto state = testing::snapshot_prefix(target);
    const auto& expected = expect_new ? new_state_ : old_state_;
    EXPECT_EQ(state, expected) << testing::describe_difference(state, expected);
    EXPECT_FALSE(std::filesystem::exists(TransactionJournal::directory(target)));
  }

  specs::PackageRecord old_;
  specs::PackageRecord new_;
  PrefixSnapshot old_state_;
  PrefixSnapshot new_state_;
};

TEST_F(DirectoryUpgradeCrashTest, KilledAtEachStepEndsInOneStateOrTheOther) {
  int i = 0;
  for (const auto& [point, expect_new] : std::vector<std::pair<CrashPoint, bool>>{
           {CrashPoint::after_unlink, false},
           {CrashPoint::after_prune, false},
           {CrashPoint::before_commit, false},
           {CrashPoint::after_commit, true}}) {
    TestCrashHook hook;
    hook.at = point;
    crash_and_recover(i++, hook, expect_new, "crash point " + std::to_string(static_cast<int>(point)));
  }
  // bin/content.txt, xbin, then the conda-meta record.
  for (std::size_t files = 1; files <= 2; ++files) {
    TestCrashHook hook;
    hook.after_linked_files = files;
    crash_and_recover(i++, hook, false, "after " + std::to_string(files) + " linked files");
  }
}

TEST_F(DirectoryUpgradeCrashTest, KilledWhileRollingBackAFailedUpdateEndsInTheOldState) {
  // A second package that cannot be linked (a binary placeholder longer
  // than the prefix allows fails) makes the update roll back after the
  // directory was pruned and xbin linked; the rollback itself is killed.
  TestCrashHook hook;
  hook.at = CrashPoint::during_rollback;
  crash_and_recover(20, hook, false, "during the rollback",
                    {new_, channel().add(PackageBuilder("broken", "1.0")
                                             .binary_with_prefix("lib/libbroken.so", std::string("/p\0", 3), "/p"))});
}

}  // namespace
}  // namespace gpuenv::prefix
