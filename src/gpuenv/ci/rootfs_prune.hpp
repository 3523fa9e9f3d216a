// `gpuenv ci prune`: the chroot runner's root filesystems that no current
// image definition uses any more. Each definition change makes a new tree
// (its key hashes the definition, rootfs.hpp) and leaves the old one behind:
// gigabytes per CUDA image on a CI machine that keeps its cache.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"
#include "gpuenv/ci/image_definition.hpp"
#include "gpuenv/ci/rootfs.hpp"

namespace gpuenv::ci {

struct PrunedTree {
  std::filesystem::path path;
  std::uint64_t bytes = 0;  // the files under it
};

struct PruneReport {
  std::vector<PrunedTree> removed;  // or, with dry_run, what would be
  std::vector<PrunedTree> kept;     // the trees the definitions use
  std::vector<PrunedTree> in_use;   // unused by the definitions but mounted on (a job runs in it): left
  std::vector<std::string> errors;  // trees that could not be removed, with why
  std::uint64_t freed_bytes = 0;
};

// The directory names under <cache>/ci-rootfs that `images` use: each
// image's tree and the base tree of its Debian release (images that are not
// Debian-based have none).
std::vector<std::string> rootfs_keys_in_use(const std::vector<ImageDefinition>& images,
                                            const DebianMirror& machine_mirror);

// Removes the trees under `cache_root` (<cache>/ci-rootfs) whose names are
// not in `keep`: only directories holding rootfs_marker (what the chroot
// runner made; nothing else there is touched, symbolic links neither), with
// their `<tree>.wheels` download folder, never one with a mount point under
// it (`mount_table`: /proc/self/mounts's text). With dry_run nothing is
// removed and `removed` lists what would be.
PruneReport prune_rootfs(const std::filesystem::path& cache_root, const std::vector<std::string>& keep,
                         std::string_view mount_table, bool dry_run);

// `gpuenv ci prune`: the images of `images_dir` decide what stays under
// <machine cache>/ci-rootfs; the mount table is /proc/self/mounts (without
// it a tree a job runs in could go, so it is an error not to read it).
// Half-made trees of dead processes go too, unless dry_run.
std::expected<PruneReport, CiError> prune_unused_rootfs(const std::filesystem::path& images_dir,
                                                        const ChrootMachine& machine, bool dry_run);

// `gpuenv ci prune --json`: {"dry_run", "removed": [{"path", "bytes"}],
// "in_use": [...], "kept": [...], "errors": [...], "freed_bytes"}.
std::string prune_report_json(const PruneReport& report, bool dry_run);

}  // namespace gpuenv::ci
