// Making (or finding) an image's root filesystem for the chroot runner:
// the shared debootstrap base, then a copy of it with the image's apt
// sources, packages and CUDA toolkit (rootfs.hpp says what and where). Each
// tree is built under a staging name and renamed into place only after its
// marker is written, so an interrupted build (Ctrl-C, a full disk, a failed
// download) never leaves a tree that a later run takes for complete; stale
// staging trees of dead processes are removed on the next run.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "gpuenv/ci/ci_error.hpp"
#include "gpuenv/ci/image_definition.hpp"
#include "gpuenv/ci/rootfs.hpp"

namespace gpuenv::ci {

struct RootfsRequest {
  ImageDefinition image;
  DebianMirror mirror;
  std::filesystem::path gpuenv_cache_dir;  // absolute; trees go to <it>/ci-rootfs
  // Copied into the tree so apt (and builds that fetch) resolve names.
  std::filesystem::path resolv_conf = "/etc/resolv.conf";
  std::function<void(const std::string&)> on_step;  // one line per step
  std::function<void(std::string_view)> on_output;  // the commands' output, as it comes
};

struct Rootfs {
  std::filesystem::path path;
  bool cached = false;  // found complete; nothing was built
  double seconds = 0;   // spent making it (0 when cached)
};

std::expected<Rootfs, CiError> ensure_rootfs(const RootfsRequest& request);

// The directories the runner bind-mounts onto, made while the tree is
// writable so a read-only tree needs no change at run time.
inline constexpr const char* kRecipeMount = "/gpuenv/recipe";
inline constexpr const char* kOutputMount = "/gpuenv/output";
inline constexpr const char* kCacheMount = "/gpuenv/cache";
inline constexpr const char* kVariantsMount = "/gpuenv/variants";
inline constexpr const char* kGpuenvMount = "/usr/local/bin/gpuenv";
inline constexpr const char* kCaBundleMount = "/gpuenv/ca-bundle.pem";

}  // namespace gpuenv::ci
