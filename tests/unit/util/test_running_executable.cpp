// util::running_executable: the file of the program that runs, which gpuenv
// hands to the CI jobs and shell hooks it starts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gpuenv/util/subprocess.hpp"

namespace {

TEST(RunningExecutable, IsThisTestProgram) {
  const auto path = gpuenv::util::running_executable();
  ASSERT_TRUE(path) << path.error();
  EXPECT_TRUE(path->is_absolute());
  EXPECT_EQ(path->filename(), "gpuenv_util_tests");
  EXPECT_EQ(::access(path->c_str(), X_OK), 0);
}

// conda-meta/history's "# cmd:" line: the words this test was started with,
// joined by spaces, no NUL separators left.
TEST(RunningCommandLine, IsThisTestsArgumentsJoinedBySpaces) {
  std::string expected;
  for (const auto& word : ::testing::internal::GetArgvs()) expected += (expected.empty() ? "" : " ") + word;
  const auto line = gpuenv::util::running_command_line();
  EXPECT_EQ(line, expected);
  EXPECT_EQ(line.find('\0'), std::string::npos);
  EXPECT_NE(line.find("gpuenv_util_tests"), std::string::npos);
}

}  // namespace
