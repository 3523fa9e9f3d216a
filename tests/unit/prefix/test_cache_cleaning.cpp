// `gpuenv clean`'s cache side: what counts as a package file, an unused
// entry and a leftover; what is never touched (entries an environment
// links, anything behind a symbolic link, what another process has locked).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "gpuenv/prefix/cache_cleaning.hpp"
#include "gpuenv/prefix/file_lock.hpp"
#include "prefix_fixture.hpp"

namespace gpuenv::prefix {
namespace {

namespace fs = std::filesystem;
using testing::PackageBuilder;

std::vector<std::string> names(const std::vector<CleanItem>& items) {
  std::vector<std::string> found;
  for (const auto& item : items) found.push_back(item.path.filename().string());
  std::sort(found.begin(), found.end());
  return found;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

class CacheCleaningTest : public testing::PrefixTest {
 protected:
  // used-1.0-0 linked into prefix(); unused-1.0-0 and other-1.0-0 extracted
  // for an environment that is gone; a half download and a half extraction;
  // links to a package-looking directory and file outside the cache.
  void SetUp() override {
    const auto used = channel().add(PackageBuilder("used", "1.0").file("lib/used.txt", "used\n"));
    const auto unused = channel().add(PackageBuilder("unused", "1.0").file("lib/unused.txt", "unused\n"));
    const auto other = channel().add(PackageBuilder("other", "1.0").file("lib/other.txt", "other\n"));
    install({used});
    install_into(scratch() / "gone", {unused, other}, {}, options());
    fs::remove_all(scratch() / "gone");
    write(pkgs() / "late-1.0-0.conda.partial", "half a download");
    write(pkgs() / "late-1.0-0.gpuenv-partial/lib/late.txt", "half an extraction");
    write(outside() / "info/index.json", "{}");
    write(outside() / "keep.txt", "keep\n");
    write(scratch() / "outside.conda", "not in the cache");
    fs::create_directory_symlink(outside(), pkgs() / "linked-1.0-0");
    fs::create_symlink(scratch() / "outside.conda", pkgs() / "linked-1.0-0.conda");
  }

  fs::path outside() const { return scratch() / "outside"; }

  CleanRequest everything() const {
    CleanRequest request;
    request.tarballs = request.packages = request.index_cache = true;
    request.pkgs_dirs = {pkgs()};
    request.cache_dir = scratch() / "cache";
    return request;
  }
};

TEST_F(CacheCleaningTest, PlansPackageFilesUnusedEntriesAndLeftoversOnly) {
  write(scratch() / "cache/repodata/abc.json", "{}");
  write(scratch() / "cache/ci-rootfs/keep", "not the index cache");
  const auto plan = plan_clean(everything());
  EXPECT_EQ(names(plan.tarballs), (std::vector<std::string>{"late-1.0-0.conda.partial", "other-1.0-0.conda",
                                                            "unused-1.0-0.conda", "used-1.0-0.conda"}));
  EXPECT_EQ(names(plan.packages),
            (std::vector<std::string>{"late-1.0-0.gpuenv-partial", "other-1.0-0", "unused-1.0-0"}));
  EXPECT_EQ(names(plan.index_cache), (std::vector<std::string>{"repodata"}));
  EXPECT_TRUE(plan.skipped.empty());

  CleanRequest only_tarballs = everything();
  only_tarballs.packages = only_tarballs.index_cache = false;
  const auto tarballs = plan_clean(only_tarballs);
  EXPECT_EQ(tarballs.tarballs.size(), 4u);
  EXPECT_TRUE(tarballs.packages.empty());
  EXPECT_TRUE(tarballs.index_cache.empty());
}

TEST_F(CacheCleaningTest, DeletesWhatItPlannedLeavesLockedAndLinkedEntriesAndNothingOutside) {
  const auto plan = plan_clean(everything());
  // Another process fetching other-1.0-0 holds its lock.
  const auto held = FileLock::acquire(pkgs() / ".gpuenv-locks" / "other-1.0-0.lock");
  const auto done = carry_out_clean(plan);
  EXPECT_EQ(names(done.packages), (std::vector<std::string>{"late-1.0-0.gpuenv-partial", "unused-1.0-0"}));
  EXPECT_EQ(names(done.tarballs),
            (std::vector<std::string>{"late-1.0-0.conda.partial", "unused-1.0-0.conda", "used-1.0-0.conda"}));
  ASSERT_EQ(done.skipped.size(), 2u);  // other's entry and its .conda
  for (const auto& skipped : done.skipped) {
    EXPECT_NE(skipped.find("other-1.0-0"), std::string::npos) << skipped;
    EXPECT_NE(skipped.find("another gpuenv process"), std::string::npos) << skipped;
  }
  EXPECT_TRUE(fs::is_directory(pkgs() / "other-1.0-0"));
  EXPECT_TRUE(fs::exists(pkgs() / "other-1.0-0.conda"));
  // The environment's entry and files stay.
  EXPECT_TRUE(fs::exists(pkgs() / "used-1.0-0/lib/used.txt"));
  EXPECT_TRUE(fs::exists(prefix() / "lib/used.txt"));
  // Links into the cache are neither followed nor removed.
  EXPECT_TRUE(fs::is_symlink(pkgs() / "linked-1.0-0"));
  EXPECT_TRUE(fs::exists(outside() / "keep.txt"));
  EXPECT_TRUE(fs::exists(scratch() / "outside.conda"));
}

TEST_F(CacheCleaningTest, AnEntryLinkedAfterThePlanStays) {
  const auto plan = plan_clean(everything());
  fs::create_directories(scratch() / "late-env/lib");
  fs::create_hard_link(pkgs() / "unused-1.0-0/lib/unused.txt", scratch() / "late-env/lib/unused.txt");
  const auto done = carry_out_clean(plan);
  EXPECT_TRUE(fs::exists(pkgs() / "unused-1.0-0/lib/unused.txt"));
  EXPECT_EQ(std::count_if(done.skipped.begin(), done.skipped.end(),
                          [](const std::string& why) { return why.find("an environment uses it now") != why.npos; }),
            1);
}

TEST_F(CacheCleaningTest, AReadOnlyOrMissingPackageDirectoryIsLeftAlone) {
  CleanRequest request = everything();
  request.pkgs_dirs = {scratch() / "no-such-pkgs"};
  const auto plan = plan_clean(request);
  EXPECT_TRUE(plan.tarballs.empty());
  EXPECT_TRUE(plan.packages.empty());
}

}  // namespace
}  // namespace gpuenv::prefix
