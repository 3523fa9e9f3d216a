#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gpuenv/ci/gpuenv_bundle.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::ci::libraries_to_bundle;
using gpuenv::testing::run_program;

// ldd of gpuenv on Debian 12, shortened.
const char* kLdd = R"(	linux-vdso.so.1 (0x00007ffd6b5f2000)
	libfmt.so.9 => /lib/x86_64-linux-gnu/libfmt.so.9 (0x00007f0e0c5a0000)
	libyaml-cpp.so.0.7 => /lib/x86_64-linux-gnu/libyaml-cpp.so.0.7 (0x00007f0e0c540000)
	libstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f0e0c200000)
	libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f0e0c120000)
	libgcc_s.so.1 => /lib/x86_64-linux-gnu/libgcc_s.so.1 (0x00007f0e0c100000)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f0e0bf00000)
	libfmt.so.9 => /lib/x86_64-linux-gnu/libfmt.so.9 (0x00007f0e0c5a0000)
	libmissing.so.1 => not found
	../evil.so => /tmp/evil.so (0x0)
	librel.so.1 => relative/librel.so.1 (0x0)
	/lib64/ld-linux-x86-64.so.2 (0x00007f0e0c600000)
)";

TEST(GpuenvBundle, EveryLibraryButGlibcsOnce) {
  const auto libraries = libraries_to_bundle(kLdd);
  std::vector<std::string> names;
  for (const auto& library : libraries) names.push_back(library.name);
  EXPECT_EQ(names, (std::vector<std::string>{"libfmt.so.9", "libyaml-cpp.so.0.7", "libstdc++.so.6", "libgcc_s.so.1"}));
  EXPECT_EQ(libraries[0].source, fs::path("/lib/x86_64-linux-gnu/libfmt.so.9"));
}

TEST(GpuenvBundle, GlibcsLibrariesStayWithTheTargetsLoader) {
  for (const char* name : {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libresolv.so.2",
                           "ld-linux-x86-64.so.2", "linux-vdso.so.1", "libmvec.so.1"}) {
    EXPECT_TRUE(gpuenv::ci::is_glibc_library(name)) << name;
  }
  for (const char* name : {"libcurl.so.4", "libcrypto.so.3", "libstdc++.so.6", "libcap.so.2", "libmd.so.0"}) {
    EXPECT_FALSE(gpuenv::ci::is_glibc_library(name)) << name;
  }
}

// A real bundle of a real program (patchelf: C++, so libstdc++ and libgcc_s
// come along): it runs, and its libraries resolve inside the bundle.
TEST(GpuenvBundle, ABundledProgramRunsWithItsOwnLibraries) {
  const fs::path program = "/usr/bin/patchelf";
  if (!fs::exists(program) || run_program("/bin/sh", {"-c", "command -v ldd"}).exit_code != 0) {
    GTEST_SKIP() << "needs patchelf and ldd (scripts/setup.sh installs them)";
  }
  gpuenv::testing::TempDirectory dir;
  gpuenv::ci::BundleRequest request;
  request.binary = program;
  request.gpuenv_cache_dir = dir.path() / "cache";
  auto bundle = gpuenv::ci::ensure_gpuenv_bundle(request);
  ASSERT_TRUE(bundle) << bundle.error().message;
  EXPECT_EQ(bundle->parent_path(), dir.path() / "cache" / "ci-bundle");
  for (const char* name : {"gpuenv", "libstdc++.so.6", "libgcc_s.so.1", "libcurl.so.4"}) {
    EXPECT_TRUE(fs::is_regular_file(*bundle / name)) << name;
  }
  EXPECT_FALSE(fs::exists(*bundle / "libc.so.6"));
  const auto version = run_program((*bundle / "gpuenv").string(), {"--version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  const auto ldd = run_program("ldd", {(*bundle / "gpuenv").string()});
  ASSERT_EQ(ldd.exit_code, 0) << ldd.err;
  EXPECT_NE(ldd.out.find("libstdc++.so.6 => " + (*bundle / "libstdc++.so.6").string()), std::string::npos) << ldd.out;
  const auto curl = run_program("ldd", {(*bundle / "libcurl.so.4").string()});
  EXPECT_NE(curl.out.find((*bundle).string()), std::string::npos) << curl.out;  // its libraries too
  // Found again, not made again.
  const auto made = fs::last_write_time(*bundle / "gpuenv");
  auto again = gpuenv::ci::ensure_gpuenv_bundle(request);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *bundle);
  EXPECT_EQ(fs::last_write_time(*again / "gpuenv"), made);
}

// `gpuenv ci bundle build/x` names a folder relative to where it runs;
// ldd and patchelf run elsewhere ("/") and must still find the files.
TEST(GpuenvBundle, ARelativeFolderIsBundledWhereTheCallerMeant) {
  if (!fs::exists("/usr/bin/patchelf")) GTEST_SKIP() << "needs patchelf (scripts/setup.sh installs it)";
  gpuenv::testing::TempDirectory dir;
  const auto previous = fs::current_path();
  fs::current_path(dir.path());
  gpuenv::ci::BundleRequest request;
  request.binary = "/usr/bin/patchelf";
  auto made = gpuenv::ci::make_gpuenv_bundle(request, "relative/bundle");
  fs::current_path(previous);
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_TRUE(fs::is_regular_file(dir.path() / "relative/bundle/libstdc++.so.6"));
}

// A bundle an interrupted run was making is removed by the next run, a
// bundle another running process is making is left alone.
TEST(GpuenvBundle, StagingFoldersOfDeadRunsAreRemoved) {
  if (!fs::exists("/usr/bin/patchelf")) GTEST_SKIP() << "needs patchelf (scripts/setup.sh installs it)";
  gpuenv::testing::TempDirectory dir;
  const auto bundles = dir.path() / "cache/ci-bundle";
  const auto dead = bundles / ".staging-gpuenv-0123456789abcdef-999999999";  // above any pid_max
  const auto running = bundles / (".staging-gpuenv-0123456789abcdef-" + std::to_string(::getppid()));
  fs::create_directories(dead / "half");
  fs::create_directories(running);
  gpuenv::ci::BundleRequest request;
  request.binary = "/usr/bin/patchelf";
  request.gpuenv_cache_dir = dir.path() / "cache";
  auto bundle = gpuenv::ci::ensure_gpuenv_bundle(request);
  ASSERT_TRUE(bundle) << bundle.error().message;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(running));
}

TEST(GpuenvBundle, AMissingDlopenedLibraryIsNamed) {
  gpuenv::testing::TempDirectory dir;
  gpuenv::ci::BundleRequest request;
  request.binary = "/bin/true";
  request.library_dirs = {dir.path() / "nothing-here"};
  auto made = gpuenv::ci::make_gpuenv_bundle(request, dir.path() / "bundle");
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message.find("libcurl.so.4"), std::string::npos) << made.error().message;
}

}  // namespace
