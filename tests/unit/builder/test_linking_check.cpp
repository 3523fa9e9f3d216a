// Overlinking and overdepending from plain inputs: which needed sonames the
// package, its run requirements, the system or the allowlist provide, and
// which run requirements ship libraries nothing links.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/builder/linking_check.hpp"

namespace {

using gpuenv::build::check_linking;
using gpuenv::build::LinkingCheckInput;

LinkingCheckInput tool_linking(std::vector<std::string> needed) {
  LinkingCheckInput input;
  input.elf_files = {{"bin/tool", "", std::move(needed)}, {"lib/libown.so.1.0", "libown.so.1", {"libc.so.6"}}};
  input.package_files = {"bin/tool", "lib/libown.so.1.0", "lib/libown.so", "share/doc/tool.txt"};
  input.host_packages = {{"zlib", {"include/zlib.h", "lib/libz.so", "lib/libz.so.1", "lib/libz.so.1.3"}},
                         {"openssl", {"lib/libssl.so.3", "lib/libcrypto.so.3"}},
                         {"headers-only", {"include/thing.h"}}};
  return input;
}

TEST(LinkingCheck, EverySonameProvidedByThePackageARunRequirementOrTheSystemIsFine) {
  auto input = tool_linking({"libown.so.1", "libz.so.1", "libm.so.6", "libc.so.6", "libcuda.so.1",
                             "libnvidia-ml.so.1", "ld-linux-x86-64.so.2"});
  input.run_requirements = {"zlib"};
  const auto report = check_linking(input);
  EXPECT_TRUE(report.overlinks.empty());
  EXPECT_TRUE(report.overdepends.empty());
}

TEST(LinkingCheck, AHostLibraryWhosePackageIsNoRunRequirementIsOverlinking) {
  auto input = tool_linking({"libz.so.1", "libssl.so.3"});
  input.run_requirements = {"zlib"};
  const auto report = check_linking(input);
  ASSERT_EQ(report.overlinks.size(), 1u);
  EXPECT_EQ(report.overlinks[0].file, "bin/tool");
  EXPECT_EQ(report.overlinks[0].soname, "libssl.so.3");
  EXPECT_EQ(report.overlinks[0].host_provider, "openssl");
}

TEST(LinkingCheck, ASonameNothingProvidesIsOverlinkingWithoutAProvider) {
  const auto report = check_linking(tool_linking({"libmystery.so.2"}));
  ASSERT_EQ(report.overlinks.size(), 1u);
  EXPECT_EQ(report.overlinks[0].soname, "libmystery.so.2");
  EXPECT_EQ(report.overlinks[0].host_provider, "");
}

TEST(LinkingCheck, CompilerRuntimesAreSystemLibrariesOnlyWithTheMachinesCompilers) {
  auto input = tool_linking({"libstdc++.so.6", "libgcc_s.so.1"});
  EXPECT_EQ(check_linking(input).overlinks.size(), 2u);
  input.machine_compilers = true;
  EXPECT_TRUE(check_linking(input).overlinks.empty());
}

TEST(LinkingCheck, TheAllowlistMatchesSonamesAndPaths) {
  auto input = tool_linking({"libmystery.so.2", "libssl.so.3", "libcustom.so"});
  input.missing_dso_allowlist = {"libmystery.so*", "lib/libssl.*", "**/libcustom.so"};
  EXPECT_TRUE(check_linking(input).overlinks.empty());
  input.missing_dso_allowlist = {"libother.so*"};
  EXPECT_EQ(check_linking(input).overlinks.size(), 3u);
}

TEST(LinkingCheck, ARunRequirementWithLibrariesNothingLinksIsOverdepending) {
  auto input = tool_linking({"libz.so.1"});
  input.run_requirements = {"zlib", "openssl", "headers-only", "not-in-host"};
  const auto report = check_linking(input);
  EXPECT_TRUE(report.overlinks.empty());
  ASSERT_EQ(report.overdepends.size(), 1u);  // no libraries, or not installed: nothing to judge
  EXPECT_EQ(report.overdepends[0].package, "openssl");
  EXPECT_EQ(report.overdepends[0].libraries, (std::vector<std::string>{"libcrypto.so.3", "libssl.so.3"}));
}

// An extension module (lib/python3.13/site-packages/x.cpython-313-x86_64-linux-gnu.so)
// never links libpython; its package's python requirement is not overdepending.
TEST(LinkingCheck, PythonIsNotOverdependingForAnExtensionModule) {
  LinkingCheckInput input;
  input.elf_files = {{"lib/python3.13/site-packages/fast.cpython-313-x86_64-linux-gnu.so", "", {"libc.so.6"}}};
  input.package_files = {"lib/python3.13/site-packages/fast.cpython-313-x86_64-linux-gnu.so"};
  input.host_packages = {{"python", {"lib/libpython3.13.so.1.0", "lib/libpython3.13.so", "bin/python3.13"}}};
  input.run_requirements = {"python"};
  EXPECT_TRUE(check_linking(input).overdepends.empty());
}

TEST(LinkingCheck, APackageWithoutElfFilesIsNotOverdepending) {
  LinkingCheckInput input;
  input.package_files = {"share/data.txt"};
  input.host_packages = {{"zlib", {"lib/libz.so.1"}}};
  input.run_requirements = {"zlib"};
  EXPECT_TRUE(check_linking(input).overdepends.empty());
}

TEST(LinkingCheck, SharedLibraryNames) {
  EXPECT_TRUE(gpuenv::build::is_shared_library_name("libz.so"));
  EXPECT_TRUE(gpuenv::build::is_shared_library_name("libz.so.1.3"));
  EXPECT_FALSE(gpuenv::build::is_shared_library_name("libz.a"));
  EXPECT_FALSE(gpuenv::build::is_shared_library_name("libz.something"));
  EXPECT_FALSE(gpuenv::build::is_shared_library_name("libz.so-gdb.py"));
}

}  // namespace
