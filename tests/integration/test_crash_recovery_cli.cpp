// A gpuenv killed (SIGKILL) in the middle of changing an environment: the
// next gpuenv call on that environment finds it as it was before or as it
// would have been after, never a mix. The kill comes from the prefix
// module's test hooks (GPUENV_TEST_CRASH_AT, GPUENV_TEST_CRASH_AFTER_LINKED_FILES),
// which the CLI reads from its environment.
#include <gtest/gtest.h>

#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::describe_difference;
using gpuenv::testing::InstallCliMachine;
using gpuenv::testing::PrefixSnapshot;
using gpuenv::testing::snapshot_prefix;

constexpr int kKilled = 128 + 9;

using gpuenv::testing::contains;

// The environment before (`libdep` 1.0 and `tool`) and after the change
// (`libdep` 2.0, `bulk` and its 40 files added, `tool` kept), each made
// without a crash in a prefix whose path has the crashing one's length.
class CrashRecoveryCli : public ::testing::Test {
 protected:
  void SetUp() override {
    before_ = make_before(machine_ / "old00");
    const auto after_prefix = machine_ / "new00";
    make_before(after_prefix);
    ASSERT_EQ(change(after_prefix).exit_code, 0);
    after_ = snapshot_prefix(after_prefix);
    ASSERT_NE(before_, after_);
  }

  PrefixSnapshot make_before(const fs::path& prefix) {
    const auto created = machine_.gpuenv("create", prefix, {"libdep=1.0", "tool"});
    EXPECT_EQ(created.exit_code, 0) << created.err;
    return snapshot_prefix(prefix);
  }

  CommandOutput change(const fs::path& prefix, const std::vector<std::string>& crash_env = {}) {
    return machine_.gpuenv("install", prefix, {"bulk", "libdep=2.0"}, crash_env);
  }

  // The next call on the prefix: it settles the interrupted transaction
  // before looking at what is installed.
  CommandOutput next_call(const fs::path& prefix) {
    return machine_.gpuenv("install", prefix, {"--dry-run", "tool"});
  }

  // Kills the change with `crash_env`, then checks that the next call
  // brings the prefix to `expected`.
  void crash_and_recover(const std::vector<std::string>& crash_env, const PrefixSnapshot& expected,
                         const std::string& outcome) {
    SCOPED_TRACE(crash_env.front());
    const auto prefix = machine_ / "crash";
    fs::remove_all(prefix);
    make_before(prefix);
    const auto crashed = change(prefix, crash_env);
    ASSERT_EQ(crashed.exit_code, kKilled) << crashed.out << crashed.err;
    const auto recovered = next_call(prefix);
    ASSERT_EQ(recovered.exit_code, 0) << recovered.err;
    EXPECT_TRUE(contains(recovered.err, outcome)) << recovered.err;
    EXPECT_FALSE(fs::exists(prefix / "conda-meta/.gpuenv-transaction"));
    const auto actual = snapshot_prefix(prefix);
    EXPECT_EQ(actual, expected) << describe_difference(actual, expected);
  }

  InstallCliMachine machine_;
  PrefixSnapshot before_;
  PrefixSnapshot after_;
};

TEST_F(CrashRecoveryCli, KilledWhileLinkingRollsBack) {
  // libdep 2.0 has 4 paths and is linked first; bulk's 40 follow.
  for (const char* files : {"1", "3", "5", "12", "30", "43"}) {
    crash_and_recover({std::string("GPUENV_TEST_CRASH_AFTER_LINKED_FILES=") + files}, before_, "rolled back");
  }
}

TEST_F(CrashRecoveryCli, KilledAfterUnlinkingRollsBack) {
  crash_and_recover({"GPUENV_TEST_CRASH_AT=after_unlink"}, before_, "rolled back");
}

TEST_F(CrashRecoveryCli, KilledBeforeTheCommitRollsBack) {
  crash_and_recover({"GPUENV_TEST_CRASH_AT=before_commit"}, before_, "rolled back");
}

TEST_F(CrashRecoveryCli, KilledAfterTheCommitIsCompleted) {
  crash_and_recover({"GPUENV_TEST_CRASH_AT=after_commit"}, after_, "completed");
}

TEST_F(CrashRecoveryCli, KilledWhileRollingBackAFailedChangeRollsBack) {
  // bulk's download fails its check after libdep 2.0 is linked: the
  // rollback that follows is killed half way.
  const auto repodata_path = machine_.channel_dir() / "linux-64/repodata.json";
  auto repodata = gpuenv::testing::read_json_file(repodata_path);
  repodata["packages.conda"]["bulk-1.0-0.conda"]["sha256"] = std::string(64, 'b');
  gpuenv::testing::write_text_file(repodata_path, repodata.dump(1));
  crash_and_recover({"GPUENV_TEST_CRASH_AT=during_rollback"}, before_, "rolled back");
}

TEST_F(CrashRecoveryCli, ACreateKilledHalfWayCanBeRunAgain) {
  const auto prefix = machine_ / "crash";
  const auto crashed =
      machine_.gpuenv("create", prefix, {"libdep=1.0", "tool"}, {"GPUENV_TEST_CRASH_AFTER_LINKED_FILES=2"});
  ASSERT_EQ(crashed.exit_code, kKilled) << crashed.err;
  ASSERT_TRUE(fs::exists(prefix / "conda-meta/.gpuenv-transaction"));
  const auto again = machine_.gpuenv("create", prefix, {"libdep=1.0", "tool"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(contains(again.err, "rolled back")) << again.err;
  const auto actual = snapshot_prefix(prefix);
  EXPECT_EQ(actual, before_) << describe_difference(actual, before_);
}

TEST_F(CrashRecoveryCli, ABadHookValueIsRefusedBeforeAnythingChanges) {
  const auto prefix = machine_ / "crash";
  make_before(prefix);
  const auto result = change(prefix, {"GPUENV_TEST_CRASH_AT=sometime"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "GPUENV_TEST_CRASH_AT")) << result.err;
  EXPECT_EQ(snapshot_prefix(prefix), before_);
}

}  // namespace
