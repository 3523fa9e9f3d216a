// util::running_executable: the file of the program that runs, which gpuenv
// hands to the CI jobs and shell hooks it starts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "gpuenv/util/subprocess.hpp"

namespace {

TEST(RunningExecutable, IsThisTestProgram) {
  const auto path = gpuenv::util::running_executable();
  ASSERT_TRUE(path) << path.error();
  EXPECT_TRUE(path->is_absolute());
  EXPECT_EQ(path->filename(), "gpuenv_util_tests");
  EXPECT_EQ(::access(path->c_str(), X_OK), 0);
}

}  // namespace
