#include "gpuenv/solver/index_alongside.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <expected>
#include <future>
#include <string>

#include "gpuenv/repodata/repodata_index.hpp"
#include "gpuenv/solver/solv_cache.hpp"

namespace gpuenv::solver {

struct IndexBuildsAlongside::Build {
  repodata::JsonDownload download;
  dev_t device = 0;
  ino_t inode = 0;
  std::future<std::expected<repodata::PendingIndex, std::string>> parsed;
};

IndexBuildsAlongside::IndexBuildsAlongside(std::filesystem::path index_dir) : index_dir_(std::move(index_dir)) {}

IndexBuildsAlongside::~IndexBuildsAlongside() {
  for (auto& build : builds_) {
    build->download.growth->abandoned();  // no-op for a download that completed
    if (build->parsed.valid()) build->parsed.wait();
  }
}

void IndexBuildsAlongside::start(const repodata::JsonDownload& download) {
  // Opened here, on the fetching thread, before the download can finish and
  // rename the file away from its temporary name.
  const int fd = ::open(download.temp_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // the loader builds the index later
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    ::close(fd);
    return;
  }
  auto build = std::make_unique<Build>();
  build->download = download;
  build->device = info.st_dev;
  build->inode = info.st_ino;
  repodata::IndexBuildOptions options;
  options.source_label = download.label;
  build->parsed = std::async(std::launch::async, [fd, growth = download.growth, dir = index_dir_, options] {
    return repodata::parse_growing_repodata_index(fd, growth, dir, options);
  });
  std::lock_guard lock(mutex_);
  builds_.push_back(std::move(build));
}

void IndexBuildsAlongside::settle(std::vector<repodata::FetchedSubdir>& subdirs) {
  std::lock_guard lock(mutex_);
  for (auto& subdir : subdirs) {
    if (subdir.sharded) continue;
    // A retried download started a build per attempt; the last one wrote the file.
    Build* build = nullptr;
    for (auto& candidate : builds_) {
      if (candidate->download.json_path == subdir.json && candidate->parsed.valid()) build = candidate.get();
    }
    if (build == nullptr) continue;
    auto pending = build->parsed.get();
    if (!pending) continue;
    // The stamp comes from the entry's own stat; the stat after it says that
    // the file it described is the one parsed (another gpuenv may have
    // renamed a newer download over it in between).
    const auto entry = solv_cache_entry(index_dir_, subdir.json, subdir.source, false);
    if (!entry) continue;
    struct stat info {};
    if (::stat(subdir.json.c_str(), &info) != 0 || info.st_dev != build->device || info.st_ino != build->inode ||
        static_cast<std::uint64_t>(info.st_size) != pending->json_bytes() ||
        entry->source_size != pending->json_bytes() ||
        static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec != entry->source_mtime_ns) {
      continue;  // not the file that was parsed
    }
    if (repodata::RepodataIndex::open(entry->index_file, entry->index_stamp)) continue;  // another run was first
    if (!pending->commit(entry->index_file, entry->index_stamp)) continue;
    remove_stale_caches(entry->index_file, ".index");
    subdir.index_built_alongside = true;
  }
}

}  // namespace gpuenv::solver
