// Symbolic links that several packages ship can combine into a way out of
// the prefix, although each archive on its own stays inside (issue 9, item
// 2). Nothing may be created, replaced or removed through such a way: not
// by a link, not by an unlink, not by a rollback or a completed journal.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "gpuenv/prefix/beneath.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/prefix/transaction_journal.hpp"
#include "prefix_fixture.hpp"

namespace gpuenv::prefix {
namespace {

using testing::PackageBuilder;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// --- the walk itself -------------------------------------------------------

class BeneathWalkTest : public ::testing::TestWithParam<BeneathWalk> {
 protected:
  BeneathWalkTest() {
    root_ = scratch_ / "root";
    std::filesystem::create_directories(root_ / "a/b");
    std::filesystem::create_directories(root_ / "lib");
    std::filesystem::create_directories(scratch_ / "outside");
    write_text(root_ / "file", "x");
    std::filesystem::create_directory_symlink("lib", root_ / "lib64");
    std::filesystem::create_directory_symlink("..", root_ / "up");
    std::filesystem::create_directory_symlink((scratch_ / "outside").string(), root_ / "absolute");
    std::filesystem::create_symlink("loop", root_ / "loop");
    std::filesystem::create_directory_symlink("../..", root_ / "a/b/back");  // the root: inside
    std::filesystem::create_directory_symlink("b/back/../outside", root_ / "a/escape");
    fd_ = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  ~BeneathWalkTest() override { ::close(fd_); }

  // The inode the walk reaches, or -errno.
  long long walk(const std::string& relative) const {
    const int fd = open_directory_beneath(fd_, relative, GetParam());
    if (fd < 0) return fd;
    struct stat info {};
    ::fstat(fd, &info);
    ::close(fd);
    return static_cast<long long>(info.st_ino);
  }
  static long long inode(const std::filesystem::path& path) {
    struct stat info {};
    ::stat(path.c_str(), &info);
    return static_cast<long long>(info.st_ino);
  }

  testing::TempDirectory scratch_;
  std::filesystem::path root_;
  int fd_ = -1;
};

TEST_P(BeneathWalkTest, FollowsLinksThatStayInside) {
  if (walk("") == -ENOSYS) GTEST_SKIP() << "this kernel has no openat2";
  EXPECT_EQ(walk(""), inode(root_));
  EXPECT_EQ(walk("a/b"), inode(root_ / "a/b"));
  EXPECT_EQ(walk("lib64"), inode(root_ / "lib"));
  EXPECT_EQ(walk("a/b/back"), inode(root_));
  EXPECT_EQ(walk("a/b/back/lib64"), inode(root_ / "lib"));
  EXPECT_EQ(walk("a/./b/../b"), inode(root_ / "a/b"));
}

TEST_P(BeneathWalkTest, RefusesEveryWayOut) {
  if (walk("") == -ENOSYS) GTEST_SKIP() << "this kernel has no openat2";
  EXPECT_EQ(walk(".."), -EXDEV);
  EXPECT_EQ(walk("a/../.."), -EXDEV);
  EXPECT_EQ(walk("up"), -EXDEV);
  EXPECT_EQ(walk("absolute"), -EXDEV);
  EXPECT_EQ(walk("a/escape"), -EXDEV);
  EXPECT_EQ(walk("a/b/back/up/root"), -EXDEV);
  EXPECT_EQ(walk("loop"), -ELOOP);
  EXPECT_EQ(walk("missing"), -ENOENT);
  EXPECT_EQ(walk("file"), -ENOTDIR);
  EXPECT_EQ(walk("file/x"), -ENOTDIR);
}

INSTANTIATE_TEST_SUITE_P(Walks, BeneathWalkTest,
                         ::testing::Values(BeneathWalk::automatic, BeneathWalk::kernel,
                                           BeneathWalk::by_component),
                         [](const auto& info) {
                           switch (info.param) {
                             case BeneathWalk::automatic: return std::string("automatic");
                             case BeneathWalk::kernel: return std::string("kernel");
                             case BeneathWalk::by_component: return std::string("by_component");
                           }
                           return std::string();
                         });

// --- packages that combine into an escape ----------------------------------

// The prefix is <scratch>/deep/env; the victim lives beside it, in
// <scratch>/deep/victim, where the combined links lead.
class SymlinkEscapeTest : public testing::PrefixTest,
                          public ::testing::WithParamInterface<BeneathWalk> {
 protected:
  SymlinkEscapeTest() {
    write_text(victim() / "existing.txt", "precious\n");
    std::filesystem::create_directories(victim() / "empty");
    // Inside, read alone: L/a/b/up is L.
    a_ = channel().add(PackageBuilder("a", "1.0").symlink("L/a/b/up", "../.."));
    // Inside, read alone (L/a/victim); in the prefix, up is L, so this is
    // L/../../victim: <scratch>/deep/victim.
    b_ = channel().add(
        PackageBuilder("b", "1.0").depends({"a"}).symlink("L/esc", "a/b/up/../../victim"));
    c_ = channel().add(PackageBuilder("c", "1.0")
                           .depends({"b"})
                           .file("L/esc/existing.txt", "overwritten by c\n")
                           .file("L/esc/new.txt", "written by c\n"));
  }

  std::filesystem::path env() const { return scratch() / "deep" / "env"; }
  std::filesystem::path victim() const { return scratch() / "deep" / "victim"; }

  TransactionOptions walk_options() const {
    auto result = options();
    result.beneath_walk = GetParam();
    return result;
  }
  TransactionResult apply(const std::vector<specs::PackageRecord>& link,
                          const std::vector<specs::PackageRecord>& unlink = {}) {
    return install_into(env(), link, unlink, walk_options());
  }

  void expect_victim_untouched() const {
    EXPECT_EQ(read_text(victim() / "existing.txt"), "precious\n");
    EXPECT_FALSE(std::filesystem::exists(victim() / "new.txt"));
    EXPECT_TRUE(std::filesystem::is_directory(victim() / "empty"));
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(victim())) {
      ++entries;
    }
    EXPECT_EQ(entries, 2u);
  }

  specs::PackageRecord a_, b_, c_;
};

TEST_P(SymlinkEscapeTest, TheLinksThemselvesInstall) {
  apply({a_, b_});
  EXPECT_EQ(std::filesystem::read_symlink(env() / "L/esc"), "a/b/up/../../victim");
  expect_victim_untouched();
}

TEST_P(SymlinkEscapeTest, NoFileIsWrittenThroughLinksOfEarlierPackages) {
  apply({a_, b_});
  const auto before = testing::snapshot_prefix(env());
  try {
    apply({c_});
    FAIL() << "c was linked through L/esc, which leads outside the prefix";
  } catch (const PrefixError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("L/esc"), std::string::npos) << message;
    EXPECT_NE(message.find("outside the prefix"), std::string::npos) << message;
    EXPECT_NE(message.find("report it to the channel"), std::string::npos) << message;
    EXPECT_NE(message.find("as it was before"), std::string::npos) << message;
  }
  expect_victim_untouched();
  const auto after = testing::snapshot_prefix(env());
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
}

TEST_P(SymlinkEscapeTest, NoFileIsWrittenThroughLinksOfTheSameTransaction) {
  EXPECT_THROW(apply({a_, b_, c_}), PrefixError);
  expect_victim_untouched();
  EXPECT_FALSE(std::filesystem::exists(env() / "L"));
}

TEST_P(SymlinkEscapeTest, NoDirectoryOrLinkIsCreatedThroughThem) {
  apply({a_, b_});
  for (auto& package : {PackageBuilder("d", "1.0").file("L/esc/sub/dir/file", "d\n"),
                        PackageBuilder("e", "1.0").symlink("L/esc/planted", "x")}) {
    EXPECT_THROW(apply({channel().add(package)}), PrefixError);
    expect_victim_untouched();
  }
}

TEST_P(SymlinkEscapeTest, LinksThatStayInsideStillCarryFiles) {
  // lib64 -> lib, as real packages ship it; a later package writes lib64/x.
  const auto links = channel().add(
      PackageBuilder("links", "1.0").file("lib/keep", "k\n").symlink("lib64", "lib"));
  const auto user = channel().add(PackageBuilder("user", "1.0").file("lib64/libuser.so", "u\n"));
  apply({links, user});
  EXPECT_EQ(read_text(env() / "lib/libuser.so"), "u\n");
  apply({}, {user});
  EXPECT_FALSE(std::filesystem::exists(env() / "lib/libuser.so"));
  EXPECT_TRUE(std::filesystem::exists(env() / "lib/keep"));
}

// A prefix another tool (or an older gpuenv) made: a record lists paths
// that now lie beyond the escaping link. Removing that package must not
// delete anything outside.
TEST_P(SymlinkEscapeTest, RemovingAPackageNeverDeletesThroughThem) {
  const auto f = channel().add(PackageBuilder("f", "1.0")
                                   .file("M/existing.txt", "f\n")
                                   .directory("M/empty"));
  apply({a_, b_, f});
  const auto record_file = env() / "conda-meta" / "f-1.0-0.json";
  auto record = nlohmann::json::parse(read_text(record_file));
  for (auto& entry : record["paths_data"]["paths"]) {
    auto path = entry["_path"].get<std::string>();
    entry["_path"] = "L/esc" + path.substr(1);
  }
  for (auto& file : record["files"]) file = "L/esc" + file.get<std::string>().substr(1);
  std::ofstream(record_file) << record.dump();
  std::filesystem::remove_all(env() / "M");

  apply({}, {f});
  expect_victim_untouched();
  EXPECT_FALSE(std::filesystem::exists(record_file));
}

// A journal that names paths beyond the link (damaged, or written by
// someone hostile): settling it removes or restores nothing outside.
TEST_P(SymlinkEscapeTest, ARollbackNeverRemovesThroughThem) {
  apply({a_, b_});
  {
    TransactionJournal journal(env(), "");
    CreateBlock create;
    create.package = "hostile";
    create.dirs = {"L/esc/empty"};
    create.paths = {"L/esc/existing.txt"};
    journal.record(create);
  }  // no commit: the next recovery rolls back
  EXPECT_EQ(settle_journal(env()), RecoveryOutcome::rolled_back);
  expect_victim_untouched();
}

TEST_P(SymlinkEscapeTest, ARollbackNeverRestoresThroughThem) {
  apply({a_, b_});
  {
    TransactionJournal journal(env(), "");
    SaveBlock save;
    save.package = "hostile";
    save.paths = {{journal.reserve_save_ids(1), "L/esc/planted.txt"}};
    write_text(journal.saved_file(save.paths[0].id), "planted\n");
    journal.record(save);
  }
  EXPECT_THROW(settle_journal(env()), PrefixError);
  expect_victim_untouched();
}

TEST_P(SymlinkEscapeTest, ACompletedRemovalNeverCleansUpThroughThem) {
  apply({a_, b_});
  {
    TransactionJournal journal(env(), "");
    SaveBlock save;
    save.package = "hostile";
    save.cleanup_dirs = {"L/esc/empty"};
    journal.record(save);
    journal.commit();
  }
  EXPECT_EQ(settle_journal(env()), RecoveryOutcome::completed);
  expect_victim_untouched();
}

INSTANTIATE_TEST_SUITE_P(Walks, SymlinkEscapeTest,
                         ::testing::Values(BeneathWalk::automatic, BeneathWalk::by_component),
                         [](const auto& info) {
                           return std::string(info.param == BeneathWalk::automatic
                                                  ? "automatic"
                                                  : "by_component");
                         });

}  // namespace
}  // namespace gpuenv::prefix
