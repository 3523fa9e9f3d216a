// The one reader of whole files (util/file_io): user-named files may be
// FIFOs; files gpuenv wrote itself (package cache, prefix metadata) must be
// regular. Both are bounded and name the file in every refusal.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "gpuenv/util/file_io.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::util {
namespace {

using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

TEST(FileIo, ReadsARegularFileWhole) {
  TempDirectory dir;
  const std::string content(100'000, 'x');  // more than one read buffer
  write_text_file(dir.path() / "record.json", content);
  const auto read = read_regular_file_at_most(dir.path() / "record.json", 1 << 20);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, content);
  const auto text = read_text_file_at_most(dir.path() / "record.json", 1 << 20);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, content);
}

TEST(FileIo, AMissingFileIsMissingAlsoBelowAFile) {
  TempDirectory dir;
  write_text_file(dir.path() / "plain", "x");
  const auto missing = read_regular_file_at_most(dir.path() / "absent", 100);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, FileReadError::Kind::missing);
  // A path through a file (ENOTDIR) is as absent as the package cache sees it.
  const auto below = read_regular_file_at_most(dir.path() / "plain" / "x", 100);
  ASSERT_FALSE(below);
  EXPECT_EQ(below.error().kind, FileReadError::Kind::missing);
}

TEST(FileIo, ARegularFileLargerThanTheLimitIsRefusedNamingIt) {
  TempDirectory dir;
  write_text_file(dir.path() / "big.json", std::string(101, 'x'));
  const auto read = read_regular_file_at_most(dir.path() / "big.json", 100);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, FileReadError::Kind::too_large);
  EXPECT_NE(read.error().message.find("big.json"), std::string::npos) << read.error().message;
}

TEST(FileIo, AFifoOrADirectoryIsNotARegularFile) {
  TempDirectory dir;
  const auto fifo = dir.path() / "repodata_record.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer: reading it would block forever; it must be refused unread.
  const auto read = read_regular_file_at_most(fifo, 100);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, FileReadError::Kind::unreadable);
  EXPECT_NE(read.error().message.find("not a regular file"), std::string::npos) << read.error().message;
  const auto directory = read_regular_file_at_most(dir.path(), 100);
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().kind, FileReadError::Kind::unreadable);
}

}  // namespace
}  // namespace gpuenv::util
