// Two gpuenv processes never change one prefix at once: the prefix lock
// serializes them, and both transactions land.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>

#include "gpuenv/prefix/prefix_record.hpp"
#include "prefix_fixture.hpp"

namespace gpuenv::prefix {
namespace {

using testing::PackageBuilder;

class TransactionConcurrencyTest : public testing::PrefixTest {};

TEST_F(TransactionConcurrencyTest, TwoTransactionsIntoOnePrefixBothLand) {
  std::vector<specs::PackageRecord> first;
  std::vector<specs::PackageRecord> second;
  for (int i = 0; i < 6; ++i) {
    PackageBuilder a("a" + std::to_string(i), "1.0");
    PackageBuilder b("b" + std::to_string(i), "1.0");
    for (int f = 0; f < 20; ++f) {
      a.file("share/a" + std::to_string(i) + "/" + std::to_string(f), "a");
      b.file("share/b" + std::to_string(i) + "/" + std::to_string(f), "b");
    }
    // Both write conda-meta/history and share directories: unserialized
    // writers would lose one of the histories.
    first.push_back(channel().add(a));
    second.push_back(channel().add(b));
  }
  std::fflush(nullptr);
  const pid_t other = ::fork();
  if (other == 0) {
    try {
      install(first);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "first failed: %s\n", error.what());
      ::_exit(1);
    }
    ::_exit(0);
  }
  const auto outcome = testing::run_in_child([&] { install(second); });
  int status = 0;
  ::waitpid(other, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_EQ(outcome.exit_code, 0);

  EXPECT_EQ(read_prefix_records(prefix()).records.size(), 12u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(std::filesystem::exists(prefix() / ("share/a" + std::to_string(i) + "/19")));
    EXPECT_TRUE(std::filesystem::exists(prefix() / ("share/b" + std::to_string(i) + "/19")));
  }
  std::ifstream history(prefix() / "conda-meta/history");
  std::string line;
  int blocks = 0;
  int linked = 0;
  while (std::getline(history, line)) {
    if (line.starts_with("==> ")) ++blocks;
    if (line.starts_with("+")) ++linked;
  }
  EXPECT_EQ(blocks, 2);
  EXPECT_EQ(linked, 12);
}

TEST_F(TransactionConcurrencyTest, WaitsForTheLockAndNamesItsHolder) {
  const auto package = channel().add(PackageBuilder("pkg", "1.0").file("a", "a"));
  std::filesystem::create_directories(prefix() / "conda-meta");
  const auto held = lock_prefix(prefix(), std::chrono::seconds(1));
  const auto outcome = testing::run_in_child([&] {
    auto impatient = options();
    impatient.lock_timeout = std::chrono::milliseconds(200);
    std::string notice;
    impatient.on_lock_wait = [&](const std::string& message) { notice = message; };
    try {
      install_into(prefix(), {package}, {}, impatient);
    } catch (const PrefixError& error) {
      const std::string holder = "process " + std::to_string(::getppid());
      if (notice.find(holder) == std::string::npos) throw std::runtime_error("notice: " + notice);
      if (std::string(error.what()).find(holder) == std::string::npos) throw;
      ::_exit(42);
    }
  });
  EXPECT_EQ(outcome.exit_code, 42) << "the child did not wait for the lock";
  EXPECT_FALSE(std::filesystem::exists(prefix() / "a"));
}

TEST_F(TransactionConcurrencyTest, ALockDiesWithItsHolder) {
  std::filesystem::create_directories(prefix() / "conda-meta");
  const auto outcome = testing::run_in_child([&] {
    const auto lock = lock_prefix(prefix(), std::chrono::seconds(1));
    ::kill(::getpid(), SIGKILL);
  });
  EXPECT_EQ(outcome.signal, SIGKILL);
  EXPECT_NO_THROW(lock_prefix(prefix(), std::chrono::milliseconds(100)));
}

}  // namespace
}  // namespace gpuenv::prefix
