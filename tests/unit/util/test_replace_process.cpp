// util::replace_process: `gpuenv run` becomes the command, which gets the
// environment it is given and nothing else; a failed exec says why.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>

#include "gpuenv/util/subprocess.hpp"

namespace {

using gpuenv::util::ForkedChildResult;

ForkedChildResult run_replaced(const std::string& program, std::vector<std::string> arguments,
                               const std::map<std::string, std::string>& variables) {
  return gpuenv::util::run_in_forked_child(
      [&](int) {
        // Only reached when the exec failed: its errno, offset to tell it apart.
        return 100 + gpuenv::util::replace_process(program, arguments, variables);
      },
      std::chrono::seconds(10));
}

TEST(ReplaceProcess, TheCommandRunsWithExactlyTheGivenEnvironment) {
  const auto result = run_replaced(
      "/bin/sh", {"sh", "-c", R"(test "$GREETING" = "hello world" && test -z "${HOME+set}" && exit 7)"},
      {{"GREETING", "hello world"}});
  ASSERT_EQ(result.ending, ForkedChildResult::Ending::exited) << result.error;
  EXPECT_EQ(result.exit_code, 7);
}

TEST(ReplaceProcess, AProgramThatIsNotThereReturnsEnoent) {
  const auto result = run_replaced("/nonexistent/program", {"program"}, {});
  ASSERT_EQ(result.ending, ForkedChildResult::Ending::exited) << result.error;
  EXPECT_EQ(result.exit_code, 100 + ENOENT);
}

}  // namespace
