// The per-name index of a downloading repodata.json, built while it arrives.
// On a cold solve the two costs of a whole channel are the transfer (with
// its decompression) and the parse that builds the index; done one after
// the other, as before, the parse waited for the last byte. Here a thread
// per download parses the file as it grows (repodata_stream's growing
// mode), and once the fetch has committed the JSON into the cache the index
// is given the name and stamp the loader looks for, so the loader opens it
// instead of building it. Anything short of that (a retried or failed
// download, a JSON of a shape the streaming parser leaves to the whole-
// document parser, an index that cannot be written) just drops the early
// build: the loader then builds the index as it always did.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "gpuenv/repodata/channel_gateway.hpp"
#include "gpuenv/repodata/fetch.hpp"

namespace gpuenv::solver {

class IndexBuildsAlongside {
 public:
  explicit IndexBuildsAlongside(std::filesystem::path index_dir);
  ~IndexBuildsAlongside();  // abandons and waits for what settle() did not take
  IndexBuildsAlongside(const IndexBuildsAlongside&) = delete;
  IndexBuildsAlongside& operator=(const IndexBuildsAlongside&) = delete;

  // FetchOptions::on_json_download: opens the file and starts parsing it.
  void start(const repodata::JsonDownload& download);

  // After the fetch: keeps the index of each subdir whose cached JSON is
  // the very file a build parsed (same inode, same size), under the name
  // and stamp solv_cache_entry gives it, and marks the subdir
  // (FetchedSubdir::index_built_alongside).
  void settle(std::vector<repodata::FetchedSubdir>& subdirs);

 private:
  struct Build;
  std::filesystem::path index_dir_;
  std::mutex mutex_;  // start() runs on the fetching thread
  std::vector<std::unique_ptr<Build>> builds_;
};

}  // namespace gpuenv::solver
