#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpuenv/ci/chroot_command.hpp"

namespace {

using gpuenv::ci::BindMount;
using gpuenv::ci::ChrootInvocation;

ChrootInvocation build_invocation() {
  ChrootInvocation invocation;
  invocation.root = "/cache/ci-rootfs/cuda13.0-0123";
  invocation.mounts = {BindMount{"/src/recipes/stencil", "/gpuenv/recipe", true},
                       BindMount{"/out dir/with space", "/gpuenv/output", false}};
  invocation.environment = {"PATH=/opt/cuda-13.0/bin:/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"};
  invocation.working_directory = "/gpuenv/output";
  invocation.argv = {"gpuenv", "build", "/gpuenv/recipe/recipe.yaml", "--variant", "x=$(reboot)"};
  return invocation;
}

TEST(ChrootCommand, UnshareRunsAFixedScriptWithEveryValueAsAnArgument) {
  const auto command = gpuenv::ci::chroot_command(build_invocation());
  ASSERT_TRUE(command) << command.error().message;
  const std::vector<std::string> head{"unshare", "--mount", "--pid", "--fork", "--propagation", "private", "--",
                                      "/bin/sh", "-c"};
  ASSERT_GT(command->size(), head.size() + 1);
  EXPECT_TRUE(std::equal(head.begin(), head.end(), command->begin()));
  const auto& script = (*command)[head.size()];
  // No input reaches the script text.
  for (const char* value : {"stencil", "space", "cuda-13.0", "reboot", "recipe.yaml"}) {
    EXPECT_EQ(script.find(value), std::string::npos) << value;
  }
  EXPECT_NE(script.find("exec chroot \"$root\" /usr/bin/env -i -C \"$workdir\" \"$@\""), std::string::npos);
  EXPECT_NE(script.find("mount -o remount,bind,ro \"$root\""), std::string::npos);
  // /sys read-only, as in a container: builds and tests that list network
  // interfaces (UCX's tcp transport) find them.
  EXPECT_NE(script.find("mount -t sysfs -o ro,nosuid,nodev,noexec sysfs \"$root/sys\""), std::string::npos);
  const std::vector<std::string> arguments(command->begin() + static_cast<long>(head.size()) + 1, command->end());
  const std::vector<std::string> expected{"gpuenv-chroot",
                                          "/cache/ci-rootfs/cuda13.0-0123",
                                          "ro",
                                          "/gpuenv/output",
                                          "/src/recipes/stencil",
                                          "/gpuenv/recipe",
                                          "ro",
                                          "/out dir/with space",
                                          "/gpuenv/output",
                                          "rw",
                                          "--",
                                          "PATH=/opt/cuda-13.0/bin:/usr/bin:/bin",
                                          "HOME=/tmp",
                                          "LANG=C.UTF-8",
                                          "gpuenv",
                                          "build",
                                          "/gpuenv/recipe/recipe.yaml",
                                          "--variant",
                                          "x=$(reboot)"};
  EXPECT_EQ(arguments, expected);
}

TEST(ChrootCommand, MakingARootfsLeavesItWritable) {
  auto invocation = build_invocation();
  invocation.read_only_root = false;
  const auto command = gpuenv::ci::chroot_command(invocation);
  ASSERT_TRUE(command);
  EXPECT_EQ((*command)[12], "rw");
}

TEST(ChrootCommand, PathsThatLeaveTheRootOrAreRelativeAreRefused) {
  auto escaping = build_invocation();
  escaping.mounts.push_back(BindMount{"/etc", "/gpuenv/../../etc", false});
  ASSERT_FALSE(gpuenv::ci::chroot_command(escaping));
  EXPECT_NE(gpuenv::ci::chroot_command(escaping).error().message.find("/gpuenv/../../etc"), std::string::npos);
  auto relative_root = build_invocation();
  relative_root.root = "rootfs";
  EXPECT_FALSE(gpuenv::ci::chroot_command(relative_root));
  auto relative_source = build_invocation();
  relative_source.mounts.push_back(BindMount{"recipes", "/gpuenv/other", true});
  EXPECT_FALSE(gpuenv::ci::chroot_command(relative_source));
  auto separator = build_invocation();
  separator.mounts.push_back(BindMount{"/x", "--", true});
  EXPECT_FALSE(gpuenv::ci::chroot_command(separator));
  auto whole_root = build_invocation();
  whole_root.mounts.push_back(BindMount{"/", "/", false});
  EXPECT_FALSE(gpuenv::ci::chroot_command(whole_root));
  auto workdir = build_invocation();
  workdir.working_directory = "gpuenv";
  EXPECT_FALSE(gpuenv::ci::chroot_command(workdir));
}

TEST(ChrootCommand, OnlyNameValueEntriesAndARealProgramName) {
  auto not_assignment = build_invocation();
  not_assignment.environment.push_back("--unset=PATH");
  EXPECT_FALSE(gpuenv::ci::chroot_command(not_assignment));
  auto lower = build_invocation();
  lower.environment.push_back("=x");
  EXPECT_FALSE(gpuenv::ci::chroot_command(lower));
  auto program_with_equals = build_invocation();
  program_with_equals.argv = {"A=B", "x"};
  EXPECT_FALSE(gpuenv::ci::chroot_command(program_with_equals));
  auto program_option = build_invocation();
  program_option.argv = {"-u", "PATH"};
  EXPECT_FALSE(gpuenv::ci::chroot_command(program_option));
  auto empty = build_invocation();
  empty.argv.clear();
  EXPECT_FALSE(gpuenv::ci::chroot_command(empty));
}

TEST(ChrootCommand, StdoutGoesToAFileThroughAFixedScript) {
  const auto command = gpuenv::ci::with_stdout_to("/gpuenv/output/ci-run/a.json", {"gpuenv", "build", "--json"});
  const std::vector<std::string> expected{"/bin/sh", "-c", "out=$1\nshift\nexec \"$@\" > \"$out\"", "gpuenv-stdout",
                                          "/gpuenv/output/ci-run/a.json", "gpuenv", "build", "--json"};
  EXPECT_EQ(command, expected);
}

}  // namespace
