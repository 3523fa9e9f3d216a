// The one reader of whole files (util/file_io): user-named files may be
// FIFOs; files gpuenv wrote itself (package cache, prefix metadata) must be
// regular. Both are bounded and name the file in every refusal.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>

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

TEST(ReadAt, ReadsAtAnOffsetAndStopsAtTheEnd) {
  TempDirectory dir;
  write_text_file(dir / "f", "0123456789");
  const int fd = ::open((dir / "f").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  char buffer[16] = {};
  EXPECT_EQ(read_at(fd, buffer, 4, 3), 4);
  EXPECT_EQ(std::string(buffer, 4), "3456");
  EXPECT_EQ(read_at(fd, buffer, 16, 6), 4);  // the end of the file
  EXPECT_EQ(std::string(buffer, 4), "6789");
  EXPECT_EQ(read_at(fd, buffer, 4, 100), 0);
  ::close(fd);
  EXPECT_EQ(read_at(fd, buffer, 4, 0), -1);  // closed
  EXPECT_EQ(errno, EBADF);
}

}  // namespace
}  // namespace gpuenv::util
