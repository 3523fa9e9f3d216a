// Repodata of a local channel (file:// URL or plain path). Decision:
// repodata.json is used in place: it is already on local disk, so copying it
// into the cache would only cost time and space, and reading it directly
// always sees the channel's current state. When the subdir only has
// repodata.json.zst, it is decompressed into the cache (checked and renamed
// like a download) and reused while the .zst's size and mtime are unchanged.
#pragma once

#include <string>

#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/repodata/repodata_cache.hpp"
#include "gpuenv/repodata/subdir_location.hpp"

namespace gpuenv::repodata {

FetchResult fetch_local_subdir(const SubdirLocation& location, const std::string& channel,
                               const RepodataCache& cache);

}  // namespace gpuenv::repodata
