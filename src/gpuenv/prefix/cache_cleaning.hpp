// `gpuenv clean` (conda clean): what the package cache and the index cache
// hold that can go, and deleting it.
//
// - tarballs: the package files (<pkgs>/*.conda, *.tar.bz2) and downloads a
//   killed process left (*.partial). The extracted entries stay usable.
// - packages: extracted entries no environment uses. As in conda, an entry
//   is in use when one of its files has more than one hard link (an
//   environment linked it); entries whose files were copied into
//   environments look unused and go, which those environments do not miss.
//   Half-extracted (<dist>.gpuenv-partial) and replaced (.gpuenv-stale)
//   directories go too.
// - index cache: the repodata, shard, solv and solve caches under gpuenv's
//   cache directory.
//
// Every package file and entry is deleted holding its package lock (the one
// a fetch holds, PackageCache::lock_package), taken without waiting: what
// another gpuenv process is fetching right now is skipped and reported.
// Nothing outside the given directories is touched: links inside them are
// removed, never followed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gpuenv::prefix {

struct CleanRequest {
  bool tarballs = false;
  bool packages = false;
  bool index_cache = false;
  std::vector<std::filesystem::path> pkgs_dirs;  // each one gpuenv may write is cleaned
  std::filesystem::path cache_dir;               // gpuenv's cache directory (index_cache)
};

struct CleanItem {
  std::filesystem::path path;
  std::uint64_t bytes = 0;  // the file's size, or the entry's files' sizes
};

struct CleanPlan {
  std::vector<CleanItem> tarballs;
  std::vector<CleanItem> packages;
  std::vector<CleanItem> index_cache;
  // Items another process holds the lock of, each with why: left alone.
  std::vector<std::string> skipped;
};

// What `request` would delete, looking only (no lock is taken).
CleanPlan plan_clean(const CleanRequest& request);

// Deletes what `plan` lists, each package item under its lock (re-checked
// there: an entry that became used meanwhile stays). Returns what was
// deleted; what could not be is added to `skipped` with the reason.
CleanPlan carry_out_clean(const CleanPlan& plan);

// `clean --json`: {"success": true, "dry_run": ..., and for each target the
// request names, "tarballs" / "packages" / "index_cache": {"files": [...],
// "total_size": bytes}} of `done` (what was removed, or would be).
std::string clean_report_json(const CleanRequest& request, const CleanPlan& done, bool dry_run);

}  // namespace gpuenv::prefix
