#include "gpuenv/prefix/cache_cleaning.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpuenv/prefix/file_lock.hpp"

namespace gpuenv::prefix {

namespace {

namespace fs = std::filesystem;

// The package a cache name belongs to ("zlib-1.3-h0_0" for its .conda, its
// .partial download, its entry and that entry's partial or stale copy), or
// nothing for a name that is none of these.
std::optional<std::string> dist_of_tarball(std::string_view name) {
  if (name.ends_with(".partial")) name.remove_suffix(std::string_view(".partial").size());
  for (const std::string_view extension : {".conda", ".tar.bz2"}) {
    if (name.size() > extension.size() && name.ends_with(extension)) {
      return std::string(name.substr(0, name.size() - extension.size()));
    }
  }
  return std::nullopt;
}

std::optional<std::string> dist_of_leftover(std::string_view name) {
  for (const std::string_view suffix : {".gpuenv-partial", ".gpuenv-stale"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      return std::string(name.substr(0, name.size() - suffix.size()));
    }
  }
  return std::nullopt;
}

fs::path lock_of(const fs::path& pkgs_dir, const std::string& dist) {
  return pkgs_dir / ".gpuenv-locks" / (dist + ".lock");
}

struct EntryUse {
  bool used = false;        // a file with another hard link (an environment's)
  std::uint64_t bytes = 0;  // its regular files' sizes
};

// Walks `dir` without following links; stops at the first file an
// environment links. A walk that cannot finish (an unreadable directory)
// counts as used: what it could not see may be linked.
EntryUse entry_use(const fs::path& dir) {
  EntryUse use;
  std::error_code error;
  fs::recursive_directory_iterator it(dir, error);
  for (const fs::recursive_directory_iterator end; !error && it != end; it.increment(error)) {
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0) {
      use.used = true;
      return use;
    }
    if (!S_ISREG(info.st_mode)) continue;
    if (info.st_nlink > 1) {
      use.used = true;
      return use;
    }
    use.bytes += static_cast<std::uint64_t>(info.st_size);
  }
  if (error) use.used = true;
  return use;
}

bool is_package_entry(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(dir / "info" / "repodata_record.json", error) ||
         fs::is_regular_file(dir / "info" / "index.json", error);
}

bool is_plain_directory(const fs::directory_entry& entry) {
  std::error_code error;
  return fs::is_directory(entry.symlink_status(error));
}

}  // namespace

CleanPlan plan_clean(const CleanRequest& request) {
  CleanPlan plan;
  for (const auto& pkgs_dir : request.pkgs_dirs) {
    if (::access(pkgs_dir.c_str(), W_OK) != 0) continue;  // missing or read-only: not ours to clean
    std::vector<fs::directory_entry> entries;
    std::error_code error;
    for (fs::directory_iterator it(pkgs_dir, error), end; !error && it != end; it.increment(error)) {
      entries.push_back(*it);
    }
    std::sort(entries.begin(), entries.end());
    for (const auto& entry : entries) {
      const auto name = entry.path().filename().string();
      if (name.starts_with(".")) continue;  // .gpuenv-locks and the like
      std::error_code status_error;
      const auto status = entry.symlink_status(status_error);
      if (request.tarballs && fs::is_regular_file(status) && dist_of_tarball(name)) {
        std::error_code size_error;
        const auto size = fs::file_size(entry.path(), size_error);
        plan.tarballs.push_back({entry.path(), size_error ? 0 : size});
        continue;
      }
      if (!request.packages || !is_plain_directory(entry)) continue;
      if (dist_of_leftover(name)) {
        plan.packages.push_back({entry.path(), entry_use(entry.path()).bytes});
      } else if (is_package_entry(entry.path())) {
        const auto use = entry_use(entry.path());
        if (!use.used) plan.packages.push_back({entry.path(), use.bytes});
      }
    }
  }
  if (request.index_cache && !request.cache_dir.empty()) {
    for (const char* part : {"repodata", "shards", "solv", "solves"}) {
      const auto dir = request.cache_dir / part;
      std::error_code error;
      if (!fs::is_directory(fs::symlink_status(dir, error))) continue;
      plan.index_cache.push_back({dir, entry_use(dir).bytes});
    }
  }
  return plan;
}

CleanPlan carry_out_clean(const CleanPlan& plan) {
  CleanPlan done;
  done.skipped = plan.skipped;
  const auto locked = [&done](const fs::path& path, const std::string& dist) -> std::optional<FileLock> {
    try {
      auto lock = FileLock::try_acquire(lock_of(path.parent_path(), dist));
      if (!lock) done.skipped.push_back(path.string() + ": another gpuenv process is using it; run gpuenv clean again once it has finished");
      return lock;
    } catch (const std::exception& error) {
      done.skipped.push_back(path.string() + ": " + error.what());
      return std::nullopt;
    }
  };
  for (const auto& item : plan.tarballs) {
    const auto lock = locked(item.path, *dist_of_tarball(item.path.filename().string()));
    if (!lock) continue;
    if (::unlink(item.path.c_str()) == 0) {
      done.tarballs.push_back(item);
    } else {
      done.skipped.push_back(item.path.string() + ": " + std::strerror(errno));
    }
  }
  for (const auto& item : plan.packages) {
    const auto name = item.path.filename().string();
    const auto dist = dist_of_leftover(name).value_or(name);
    const auto lock = locked(item.path, dist);
    if (!lock) continue;
    // Linked into an environment since it was planned: it stays.
    if (!dist_of_leftover(name) && entry_use(item.path).used) {
      done.skipped.push_back(item.path.string() + ": an environment uses it now, so it stays");
      continue;
    }
    std::error_code error;
    fs::remove_all(item.path, error);
    if (error) {
      done.skipped.push_back(item.path.string() + ": " + error.message());
    } else {
      done.packages.push_back(item);
    }
  }
  for (const auto& item : plan.index_cache) {
    std::error_code error;
    fs::remove_all(item.path, error);
    if (error) {
      done.skipped.push_back(item.path.string() + ": " + error.message());
    } else {
      done.index_cache.push_back(item);
    }
  }
  return done;
}

std::string clean_report_json(const CleanRequest& request, const CleanPlan& done, bool dry_run) {
  const auto group = [](const std::vector<CleanItem>& items) {
    auto files = nlohmann::json::array();
    std::uint64_t total = 0;
    for (const auto& item : items) {
      files.push_back(item.path.string());
      total += item.bytes;
    }
    return nlohmann::json{{"files", files}, {"total_size", total}};
  };
  nlohmann::ordered_json report = {{"success", true}, {"dry_run", dry_run}};
  if (request.tarballs) report["tarballs"] = group(done.tarballs);
  if (request.packages) report["packages"] = group(done.packages);
  if (request.index_cache) report["index_cache"] = group(done.index_cache);
  return report.dump(2);
}

}  // namespace gpuenv::prefix
