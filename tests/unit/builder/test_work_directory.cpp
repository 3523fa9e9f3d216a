// The build root: one fixed path whatever the output directory, made
// private, and refused when what is there could be another user's (a link
// or a directory others can write, planted in the shared /tmp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "gpuenv/builder/work_directory.hpp"

namespace {

namespace fs = std::filesystem;

class BuildRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("gpuenv-build-root-test-" + std::to_string(::getpid()));
    fs::remove_all(base_);
    fs::create_directories(base_);
  }
  void TearDown() override { fs::remove_all(base_); }
  gpuenv::util::EnvLookup env_naming(const fs::path& root) const {
    return gpuenv::util::fixed_environment({{"GPUENV_BUILD_ROOT", root.string()}});
  }
  fs::path base_;
};

TEST_F(BuildRoot, IsMadePrivateAndTheWorkDirectoryIsTheSameForEveryOutputDirectory) {
  const auto root = base_ / "root";
  auto first = gpuenv::build::claim_work_directory("libx-1.0-h0_0", env_naming(root));
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->path, root / "libx-1.0-h0_0");
  struct stat info {};
  ASSERT_EQ(::stat(root.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

TEST_F(BuildRoot, WithoutTheVariableItIsAPerUserDirectoryInTmp) {
  auto root = gpuenv::build::build_root(gpuenv::util::fixed_environment({}));
  ASSERT_TRUE(root) << root.error().message;
  EXPECT_EQ(*root, fs::path("/tmp/gpuenv-build-" + std::to_string(::geteuid())));
}

TEST_F(BuildRoot, ALinkPlantedWhereTheRootGoesIsRefused) {
  fs::create_directories(base_ / "elsewhere");
  fs::create_directory_symlink(base_ / "elsewhere", base_ / "root");
  auto root = gpuenv::build::build_root(env_naming(base_ / "root"));
  ASSERT_FALSE(root);
  EXPECT_NE(root.error().message.find("not a directory (a link or a file is there)"), std::string::npos)
      << root.error().message;
  EXPECT_NE(root.error().message.find("GPUENV_BUILD_ROOT"), std::string::npos) << root.error().message;
}

TEST_F(BuildRoot, ADirectoryOthersCanWriteIsRefused) {
  fs::create_directories(base_ / "root");
  ::chmod((base_ / "root").c_str(), 0777);
  auto root = gpuenv::build::build_root(env_naming(base_ / "root"));
  ASSERT_FALSE(root);
  EXPECT_NE(root.error().message.find("others can write to it"), std::string::npos) << root.error().message;
}

}  // namespace
