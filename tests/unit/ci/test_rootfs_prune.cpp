// `gpuenv ci prune`'s library half: which root filesystems the current image
// definitions use, and removing the others -- only trees the chroot runner
// marked, never one a job has mounted, never through a symbolic link.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/ci/rootfs_prune.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::ci::DebianMirror;
using gpuenv::ci::ImageDefinition;
using gpuenv::ci::prune_rootfs;
using gpuenv::ci::rootfs_marker;
using gpuenv::testing::write_text_file;

// A tree as the chroot runner leaves it: its marker and some content.
void make_tree(const fs::path& tree, std::size_t bytes) {
  write_text_file(tree / rootfs_marker, "{}\n");
  write_text_file(tree / "usr/bin/tool", std::string(bytes, 'x'));
}

ImageDefinition image(const std::string& name, const std::string& base) {
  ImageDefinition definition;
  definition.name = name;
  definition.base = base;
  definition.system_packages = {"ca-certificates"};
  definition.c_compiler = "gcc";
  definition.cxx_compiler = "g++";
  return definition;
}

TEST(RootfsPrune, TheDefinitionsKeepTheirTreesAndTheirReleasesBases) {
  const DebianMirror mirror{"http://deb.debian.org/debian", "bookworm"};
  const auto keys = gpuenv::ci::rootfs_keys_in_use(
      {image("cpu", "debian:12"), image("cuda12.4", "debian:13"), image("ubuntu", "ubuntu:24.04")}, mirror);
  const DebianMirror trixie{mirror.uri, "trixie"};
  const std::vector<std::string> expected_unsorted{
      gpuenv::ci::base_rootfs_key(mirror), gpuenv::ci::image_rootfs_key(image("cpu", "debian:12"), mirror),
      gpuenv::ci::base_rootfs_key(trixie), gpuenv::ci::image_rootfs_key(image("cuda12.4", "debian:13"), trixie)};
  auto expected = expected_unsorted;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(keys, expected) << "ubuntu: not Debian, no tree";
}

TEST(RootfsPrune, RemovesUnusedMarkedTreesAndTheirWheelsOnly) {
  gpuenv::testing::TempDirectory dir;
  const fs::path root = dir.path() / "ci-rootfs";
  make_tree(root / "cuda13.0-current", 10);
  make_tree(root / "base-bookworm-current", 20);
  make_tree(root / "cuda13.0-old", 1000);
  write_text_file(root / "cuda13.0-old.wheels/nvcc.whl", std::string(500, 'w'));
  write_text_file(root / "notes/readme.txt", "not a tree: no marker");
  write_text_file(root / "loose-file", "x");
  make_tree(root / ".staging-cuda13.0-x-99999", 5);  // remove_stale_staging's business
  const std::vector<std::string> keep{"base-bookworm-current", "cuda13.0-current"};

  const auto preview = prune_rootfs(root, keep, "", true);
  ASSERT_EQ(preview.removed.size(), 1u);
  EXPECT_EQ(preview.removed[0].path, root / "cuda13.0-old");
  EXPECT_EQ(preview.removed[0].bytes, 1000u + 3u + 500u);
  EXPECT_EQ(preview.freed_bytes, 1503u);
  EXPECT_TRUE(fs::exists(root / "cuda13.0-old")) << "a dry run removes nothing";

  const auto report = prune_rootfs(root, keep, "", false);
  EXPECT_TRUE(report.errors.empty());
  EXPECT_EQ(report.kept.size(), 2u);
  EXPECT_EQ(report.freed_bytes, 1503u);
  EXPECT_FALSE(fs::exists(root / "cuda13.0-old"));
  EXPECT_FALSE(fs::exists(root / "cuda13.0-old.wheels"));
  for (const char* left : {"cuda13.0-current", "base-bookworm-current", "notes/readme.txt", "loose-file",
                           ".staging-cuda13.0-x-99999"}) {
    EXPECT_TRUE(fs::exists(root / left)) << left;
  }
}

TEST(RootfsPrune, ATreeAJobHasMountedIsLeft) {
  gpuenv::testing::TempDirectory dir;
  const fs::path root = dir.path() / "ci-rootfs with space";
  make_tree(root / "cuda11.8-old", 10);
  make_tree(root / "cpu-old", 10);
  // As /proc/self/mounts escapes a space in a path.
  std::string escaped = (root / "cuda11.8-old/proc").string();
  escaped.replace(escaped.find(' '), 1, "\\040");
  escaped.replace(escaped.find(' '), 1, "\\040");
  const std::string mounts = "proc /proc proc rw 0 0\nproc " + escaped + " proc rw 0 0\n";
  const auto report = prune_rootfs(root, {}, mounts, false);
  ASSERT_EQ(report.in_use.size(), 1u);
  EXPECT_EQ(report.in_use[0].path, root / "cuda11.8-old");
  EXPECT_TRUE(fs::exists(root / "cuda11.8-old"));
  ASSERT_EQ(report.removed.size(), 1u);
  EXPECT_FALSE(fs::exists(root / "cpu-old"));
}

TEST(RootfsPrune, ALinkNamedLikeATreeIsNotFollowed) {
  gpuenv::testing::TempDirectory dir;
  const fs::path root = dir.path() / "ci-rootfs";
  const fs::path elsewhere = dir.path() / "precious";
  make_tree(elsewhere, 10);
  fs::create_directories(root);
  fs::create_directory_symlink(elsewhere, root / "cuda13.0-old");
  const auto report = prune_rootfs(root, {}, "", false);
  EXPECT_TRUE(report.removed.empty());
  EXPECT_TRUE(fs::exists(elsewhere / "usr/bin/tool"));
  EXPECT_TRUE(fs::is_symlink(root / "cuda13.0-old"));
}

TEST(RootfsPrune, AMissingCacheIsNothingToDo) {
  gpuenv::testing::TempDirectory dir;
  const auto report = prune_rootfs(dir.path() / "never-made", {}, "", false);
  EXPECT_TRUE(report.removed.empty());
  EXPECT_TRUE(report.errors.empty());
}

}  // namespace

namespace {

gpuenv::util::EnvLookup lookup(std::map<std::string, std::string> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    const auto found = values.find(std::string(name));
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

TEST(ChrootMachine, NeedsACacheDirectoryAndReadsTheMirrorFile) {
  auto none = gpuenv::ci::chroot_machine(lookup({}));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("set HOME or GPUENV_CACHE_DIR"), std::string::npos) << none.error().message;

  gpuenv::testing::TempDirectory dir;
  write_text_file(dir.path() / "debian.sources",
                  "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\nComponents: main\n");
  auto machine = gpuenv::ci::chroot_machine(lookup({{"GPUENV_CACHE_DIR", (dir.path() / "cache").string()},
                                                    {"GPUENV_CI_DEBIAN_SOURCES", (dir.path() / "debian.sources").string()}}));
  ASSERT_TRUE(machine) << machine.error().message;
  EXPECT_EQ(machine->gpuenv_cache_dir, dir.path() / "cache");
  EXPECT_EQ(machine->mirror.uri, "http://mirror.example/debian");
  EXPECT_EQ(machine->mirror.suite, "bookworm");
}

// The whole of `gpuenv ci prune` below the CLI: the images folder decides,
// this process's real mount table guards.
TEST(RootfsPrune, PruneUnusedRootfsKeepsWhatTheImagesFolderUses) {
  gpuenv::testing::TempDirectory dir;
  write_text_file(dir.path() / "ci-images/cpu/image.yaml",
                  "base: debian:12\nglibc: \"2.36\"\nsystem_packages: [ca-certificates]\n"
                  "compilers: {c: gcc, cxx: g++}\ngpuenv: {binary: build/release/gpuenv}\n");
  const gpuenv::ci::ChrootMachine machine{dir.path() / "cache", DebianMirror{"http://deb.debian.org/debian", "bookworm"}};
  auto images = gpuenv::ci::read_image_definitions(dir.path() / "ci-images");
  ASSERT_TRUE(images) << images.error().message;
  const fs::path root = machine.gpuenv_cache_dir / "ci-rootfs";
  const auto current = gpuenv::ci::image_rootfs_key(images->front(), machine.mirror);
  make_tree(root / current, 10);
  make_tree(root / "cpu-0000000000000000", 10);
  auto report = gpuenv::ci::prune_unused_rootfs(dir.path() / "ci-images", machine, false);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->removed.size(), 1u);
  EXPECT_TRUE(fs::exists(root / current));
  EXPECT_FALSE(fs::exists(root / "cpu-0000000000000000"));
  EXPECT_FALSE(gpuenv::ci::prune_unused_rootfs(dir.path() / "no-images", machine, false)) << "a missing folder";
}

}  // namespace
