#include <gtest/gtest.h>

#include "support/run_command.hpp"

using gpuenv::testing::run_gpuenv;

TEST(CliBasics, HelpListsEverySubcommand) {
  const auto result = run_gpuenv({"--help"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  for (const char* sub : {"info", "cuda", "create", "install", "update", "remove", "list", "run",
                          "shell", "search", "build", "ci"}) {
    EXPECT_NE(result.out.find(sub), std::string::npos) << "missing " << sub << " in\n"
                                                       << result.out;
  }
}

TEST(CliBasics, VersionNamesGpuenvAndCondaEnabledLibsolv) {
  const auto result = run_gpuenv({"--version"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("gpuenv 0.", 0), 0u) << result.out;
  EXPECT_NE(result.out.find("linux-64"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("conda mode"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("WITHOUT"), std::string::npos) << result.out;
}

TEST(CliBasics, NoSubcommandIsAnErrorThatPointsToHelp) {
  const auto result = run_gpuenv({});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("--help"), std::string::npos) << result.err;
}

TEST(CliBasics, UnknownSubcommandIsRejected) {
  const auto result = run_gpuenv({"frobnicate"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("frobnicate"), std::string::npos) << result.err;
}

TEST(CliBasics, InfoShowsVersionAndPlatform) {
  const auto result = run_gpuenv({"info"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("linux-64"), std::string::npos) << result.out;
}
