// Which modes open() gives a new file by itself, so extraction can skip fchmod.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuenv/util/file_creation.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::util {
namespace {

TEST(CreationModes, FollowTheUmaskAndLeaveSpecialBitsToFchmod) {
  testing::TempDirectory scratch;
  const int directory = ::open(scratch.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(directory, 0);
  const mode_t previous = ::umask(022);
  EXPECT_EQ(process_umask(), mode_t{022});
  const CreationModes usual(directory);
  ::umask(002);
  const CreationModes group_writable(directory);
  ::umask(previous);
  ::close(directory);

  EXPECT_TRUE(usual.open_gives(0644));
  EXPECT_TRUE(usual.open_gives(0755));
  EXPECT_TRUE(usual.open_gives(0444));
  EXPECT_FALSE(usual.open_gives(0664));   // the umask would clear g+w
  EXPECT_FALSE(usual.open_gives(04755));  // set-id bits: always by fchmod
  EXPECT_TRUE(group_writable.open_gives(0664));
  EXPECT_FALSE(group_writable.open_gives(0666));
}

TEST(CreationModes, OnlyPythonSourcesNeedTheirModificationTime) {
  EXPECT_TRUE(modification_time_matters("lib/python3.13/site-packages/numpy/__init__.py"));
  EXPECT_FALSE(modification_time_matters("lib/python3.13/site-packages/numpy/__pycache__/__init__.cpython-313.pyc"));
  EXPECT_FALSE(modification_time_matters("lib/libcublas.so.13"));
  EXPECT_FALSE(modification_time_matters("bin/python3.13"));
}

}  // namespace
}  // namespace gpuenv::util
