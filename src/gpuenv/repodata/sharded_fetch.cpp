#include "gpuenv/repodata/sharded_fetch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <set>

#include "gpuenv/net/file_url.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/repodata/fetch_errors.hpp"
#include "gpuenv/repodata/package_url.hpp"
#include "gpuenv/repodata/shard_cache.hpp"
#include "gpuenv/repodata/shard_index_fetch.hpp"
#include "gpuenv/specs/url_credentials.hpp"
#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/json_writer.hpp"
#include "gpuenv/util/thread_pool.hpp"

namespace gpuenv::repodata {
namespace {

namespace fs = std::filesystem;

// One subdir that has shards.
struct ShardedSource {
  std::size_t request = 0;  // its index in the request
  ShardIndexSource source;
  FetchedShardIndex fetched;
  ShardIndex index;
  std::string shards_url;  // where <sha256>.msgpack.zst are, ending in '/'
  // The reached records, by file name (sorted: the same closure writes the
  // same bytes, so the loader's index of it stays valid).
  std::map<std::string, std::string> packages, packages_conda;
};

std::string label_of(const ShardedSource& source, std::string_view name, const ShardHash& hash) {
  return fmt::format("the shard of '{}' ({}{}.msgpack.zst) of channel {}, subdir {}", name,
                     specs::mask_credentials(source.shards_url), hex_of(hash), source.source.channel,
                     source.source.location.subdir_name());
}

FetchError shard_error(const ShardedSource& source, FetchErrorKind kind, std::string message) {
  return FetchError{kind, specs::mask_credentials(source.fetched.source_url), source.source.channel, std::move(message)};
}

// What a closure was made from: the indexes' versions and the request.
std::string closure_key(const std::vector<ShardedSource>& sources, const ShardedFetchRequest& request) {
  std::string key = "gpuenv-closure-1\n";
  for (const auto& source : sources) {
    key += fmt::format("{} {}\n", specs::mask_credentials(source.source.location.url()), source.fetched.version);
  }
  std::vector<std::string> roots = request.root_names;
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  key += request.follow_dependencies ? "follow\n" : "names-only\n";
  for (const auto& root : roots) key += root + "\n";
  return key;
}

std::string closure_json(const ShardedSource& source) {
  // Sized at once: a closure is megabytes, and growing the string by
  // doubling copies it and faults in fresh pages each time.
  std::size_t size = 256 + source.index.base_url.size();
  for (const auto* records : {&source.packages, &source.packages_conda}) {
    for (const auto& [filename, record] : *records) size += filename.size() + record.size() + 4;
  }
  std::string out;
  out.reserve(size);
  util::JsonWriter json(out, -1);
  json.begin_object();
  json.key("info");
  json.begin_object();
  if (!source.index.base_url.empty()) json.field("base_url", source.index.base_url);
  json.field("subdir", source.source.location.subdir_name());
  json.end_object();
  for (const auto& [key, records] : {std::pair<std::string_view, const std::map<std::string, std::string>*>{
                                         "packages", &source.packages},
                                     {"packages.conda", &source.packages_conda}}) {
    json.key(key);
    json.begin_object();
    for (const auto& [filename, record] : *records) {
      json.key(filename);
      json.raw(record);
    }
    json.end_object();
  }
  json.key("removed");
  json.begin_array();
  json.end_array();
  json.key("repodata_version");
  json.unsigned_integer(source.index.base_url.empty() ? 1 : 2);
  json.end_object();
  return out;
}

// Stores downloaded shards in the cache on a thread of its own: a hundred
// small files (create, write, rename) would otherwise sit between a
// shard's arrival and the requests for the names it reaches. The walk
// waits on the network most of the time, so the writes cost it nothing.
class ShardStoreQueue {
 public:
  explicit ShardStoreQueue(const ShardCache& cache) : cache_(cache) {}
  ~ShardStoreQueue() { finish(); }
  ShardStoreQueue(const ShardStoreQueue&) = delete;
  ShardStoreQueue& operator=(const ShardStoreQueue&) = delete;

  void store(const ShardHash& hash, std::string bytes, FetchSubject subject) {
    if (!writer_) writer_.emplace(1);  // a walk that downloads nothing starts no thread
    writer_->submit([this, hash, bytes = std::move(bytes), subject = std::move(subject)] {
      {
        const std::lock_guard lock(mutex_);
        if (error_) return;  // the walk fails anyway; the rest is not kept
      }
      if (auto stored = cache_.store_shard(hash, bytes); !stored) {
        const std::lock_guard lock(mutex_);
        error_ = cache_error(subject, cache_.dir(), stored.error());
      }
    });
  }

  // Waits for every queued shard; the first one that could not be stored.
  std::optional<FetchError> finish() {
    writer_.reset();  // runs what is queued, then joins
    return error_;
  }

 private:
  const ShardCache& cache_;
  std::mutex mutex_;
  std::optional<FetchError> error_;  // set under mutex_; read after the join
  std::optional<util::ThreadPool> writer_;
};

// Walks the dependency closure: names wait in a queue; a shard that is at
// hand (cache, local channel) is taken at once, the others are downloaded,
// and each arriving shard queues its dependencies' names while the other
// downloads are still in flight.
class ClosureWalk {
 public:
  ClosureWalk(std::vector<ShardedSource>& sources, const ShardedFetchRequest& request, const FetchOptions& options,
              const ShardCache& cache, net::HttpClient& client, ShardedFetchStats& stats)
      : sources_(sources), request_(request), options_(options), cache_(cache), client_(client), stats_(stats) {}

  std::expected<bool, FetchError> run() {
    for (const auto& name : request_.root_names) reach(name);
    drain();
    client_.run();
    if (auto store_error = stored_.finish(); store_error && !error_) error_ = std::move(*store_error);
    if (error_) return std::unexpected(*error_);
    if (needs_everything_) return false;
    if (!missing_offline_.empty()) return std::unexpected(offline_error());
    stats_.names = seen_.size();
    return true;
  }

 private:
  void reach(const std::string& name) {
    if (seen_.insert(name).second) pending_.push_back(name);
  }

  void drain() {
    while (!pending_.empty() && !error_ && !needs_everything_) {
      const std::string name = std::move(pending_.front());
      pending_.pop_front();
      for (std::size_t s = 0; s < sources_.size(); ++s) {
        if (const auto* hash = sources_[s].index.shards.find(name)) load(s, name, *hash);
      }
    }
  }

  void load(std::size_t s, const std::string& name, const ShardHash& hash) {
    auto& source = sources_[s];
    const auto max = request_.limits.max_compressed_bytes;
    if (source.source.location.is_local()) {
      auto path = net::path_from_file_url(source.shards_url + hex_of(hash) + ".msgpack.zst");
      auto bytes = path ? util::read_regular_file_at_most(*path, max)
                        : std::expected<std::string, util::FileReadError>(std::unexpected(util::FileReadError{}));
      if (!bytes) {
        return fail(shard_error(source, FetchErrorKind::not_found,
                                fmt::format("{} cannot be read ({}): re-index the channel",
                                            label_of(source, name, hash),
                                            path ? bytes.error().message : path.error())));
      }
      ++stats_.shards_cached;
      return accept(s, name, hash, *bytes, true);
    }
    if (auto cached = cache_.read_shard(hash, max)) {
      ++stats_.shards_cached;
      return accept(s, name, hash, *cached, false);
    }
    if (options_.offline) {
      missing_offline_.push_back(fmt::format("{} ({}/{})", name, source.source.channel,
                                             source.source.location.subdir_name()));
      return;
    }
    start_bounded_download(client_, source.shards_url + hex_of(hash) + ".msgpack.zst", {}, max, options_.retry,
                           [this, s, name, hash](BoundedDownloadResult result) {
                             if (error_ || needs_everything_) return;
                             downloaded(s, name, hash, std::move(result));
                             drain();
                           });
  }

  void downloaded(std::size_t s, const std::string& name, const ShardHash& hash, BoundedDownloadResult result) {
    const auto& source = sources_[s];
    const FetchSubject subject{specs::mask_credentials(source.shards_url) + hex_of(hash) + ".msgpack.zst",
                               source.source.channel, source.source.location.subdir_name()};
    const auto& response = result.response;
    if (result.too_large) {
      return fail(shard_error(source, FetchErrorKind::invalid_body,
                              fmt::format("{} is larger than {}: the channel is misbehaving",
                                          label_of(source, name, hash),
                                          util::describe_byte_count(request_.limits.max_compressed_bytes))));
    }
    if (!response.completed()) {
      return fail(transport_error(subject, response, result.attempts, options_.client.stall_timeout));
    }
    if (response.status < 200 || response.status >= 300) {
      auto error = status_error(subject, response, result.attempts);
      error.message += fmt::format(" (the shard of '{}', listed in the channel's shard index: the index and its "
                                   "shards disagree; try again later)",
                                   name);
      return fail(std::move(error));
    }
    ++stats_.shards_downloaded;
    stats_.bytes_downloaded += response.body_bytes;
    accept(s, name, hash, result.body, true);
    if (!error_) stored_.store(hash, std::move(result.body), subject);
  }

  // `verify`: bytes from the network or a channel directory; the cache only
  // ever holds checked shards.
  void accept(std::size_t s, const std::string& name, const ShardHash& hash, const std::string& bytes, bool verify) {
    auto& source = sources_[s];
    if (verify && package::sha256_hex(bytes) != hex_of(hash)) {
      return fail(shard_error(source, FetchErrorKind::invalid_body,
                              fmt::format("{} does not have the sha256 the shard index gives: it was damaged "
                                          "in transit or replaced on the server; try again, and tell the "
                                          "channel's maintainers if it persists",
                                          label_of(source, name, hash))));
    }
    auto records = parse_shard(bytes, name, label_of(source, name, hash), request_.limits);
    if (!records) return fail(shard_error(source, FetchErrorKind::invalid_body, records.error()));
    for (auto& [filename, json] : records->packages) source.packages.insert_or_assign(std::move(filename), std::move(json));
    for (auto& [filename, json] : records->packages_conda) {
      source.packages_conda.insert_or_assign(std::move(filename), std::move(json));
    }
    if (!request_.follow_dependencies) return;
    for (const auto& dependency : records->depends) {
      const auto dependency_name = request_.dependency_name(dependency);
      if (!dependency_name) {
        needs_everything_ = true;
        return;
      }
      if (!dependency_name->empty()) reach(*dependency_name);
    }
  }

  void fail(FetchError error) {
    if (!error_) error_ = std::move(error);
  }

  FetchError offline_error() const {
    const std::size_t shown = std::min<std::size_t>(missing_offline_.size(), 8);
    std::string list;
    for (std::size_t i = 0; i < shown; ++i) list += (i ? ", " : "") + missing_offline_[i];
    if (missing_offline_.size() > shown) list += fmt::format(" and {} more", missing_offline_.size() - shown);
    return FetchError{FetchErrorKind::not_cached, "", "",
                      fmt::format("offline, and the repodata shards of {} package(s) this request needs are not "
                                  "cached: {}; run the same command once without --offline to cache them",
                                  missing_offline_.size(), list)};
  }

  std::vector<ShardedSource>& sources_;
  const ShardedFetchRequest& request_;
  const FetchOptions& options_;
  const ShardCache& cache_;
  net::HttpClient& client_;
  ShardedFetchStats& stats_;
  std::set<std::string> seen_;
  std::deque<std::string> pending_;
  std::vector<std::string> missing_offline_;
  std::optional<FetchError> error_;
  bool needs_everything_ = false;
  ShardStoreQueue stored_{cache_};  // last: joined before the rest goes
};

}  // namespace

std::expected<ShardedFetchResult, FetchError> fetch_sharded(const ShardedFetchRequest& request,
                                                            const FetchOptions& options) {
  ShardedFetchResult result;
  result.subdirs.resize(request.subdirs.size());
  const ShardCache cache(options.cache_dir / "shards");
  // A closure's widest level is tens of names (about 70 for the GPU stack):
  // over HTTP/2 they share one connection; over HTTP/1.1 each needs its
  // own, and a shard left waiting for a free one costs a whole round trip
  // on the walk's critical path.
  net::HttpClient client(net::HttpClientOptions{options.client, std::max<std::size_t>(options.max_parallel, 128)});

  std::vector<ShardIndexSource> index_sources;
  std::vector<std::size_t> request_of;
  for (std::size_t i = 0; i < request.subdirs.size(); ++i) {
    auto location = SubdirLocation::parse(request.subdirs[i].url);
    if (!location) continue;  // fetch_repodata reports it
    index_sources.push_back({std::move(*location), request.subdirs[i].channel_display_name});
    request_of.push_back(i);
  }
  auto indexes = fetch_shard_indexes(index_sources, cache, options, request.limits.max_compressed_bytes, client);

  std::vector<ShardedSource> sources;
  for (std::size_t k = 0; k < indexes.size(); ++k) {
    if (!indexes[k]) return std::unexpected(indexes[k].error());
    if (!*indexes[k]) continue;
    ShardedSource source{request_of[k], index_sources[k], std::move(**indexes[k]), {}, {}, {}, {}};
    if (source.fetched.downloaded) ++result.stats.indexes_downloaded;
    if (source.fetched.not_modified) ++result.stats.indexes_not_modified;
    sources.push_back(std::move(source));
  }
  if (sources.empty()) return result;

  const std::string key = closure_key(sources, request);
  const bool reusable = std::all_of(sources.begin(), sources.end(), [&](const ShardedSource& source) {
    return cache.closure_key(source.source.location.url()) == key;
  });
  if (reusable) {
    result.stats.closure_reused = true;
    for (const auto& source : sources) {
      result.subdirs[source.request] =
          ShardedSubdir{cache.closure_json_path(source.source.location.url()), source.fetched.source_url};
    }
    return result;
  }

  for (auto& source : sources) {
    const std::string label = fmt::format("the shard index of channel {}, subdir {} ({})", source.source.channel,
                                          source.source.location.subdir_name(), source.fetched.source_url);
    auto index = parse_shard_index(source.fetched.bytes, label, request.limits);
    if (!index) return std::unexpected(shard_error(source, FetchErrorKind::invalid_body, index.error()));
    source.index = std::move(*index);
    const std::string& subdir_url = source.source.location.url();
    if (const auto problem = base_url_problem(subdir_url, source.index.shards_base_url); !problem.empty()) {
      return std::unexpected(shard_error(source, FetchErrorKind::invalid_body,
                                         fmt::format("{} cannot be used: its shards_base_url: {}", label, problem)));
    }
    source.shards_url = package_directory_url(subdir_url, source.index.shards_base_url);
  }

  ClosureWalk walk(sources, request, options, cache, client, result.stats);
  auto complete = walk.run();
  if (!complete) return std::unexpected(complete.error());
  if (!*complete) {
    result.needs_everything = true;
    result.subdirs.assign(request.subdirs.size(), std::nullopt);
    return result;
  }
  if (auto prepared = cache.prepare(); !prepared) {
    return std::unexpected(FetchError{FetchErrorKind::cache_io, cache.dir().string(), "", prepared.error()});
  }
  for (const auto& source : sources) {
    result.stats.records += source.packages.size() + source.packages_conda.size();
    const std::string& subdir_url = source.source.location.url();
    if (auto stored = cache.store_closure(subdir_url, closure_json(source), key); !stored) {
      return std::unexpected(FetchError{FetchErrorKind::cache_io, cache.dir().string(), source.source.channel,
                                        fmt::format("cannot write the repodata of channel {}, subdir {} into {}: {}",
                                                    source.source.channel, source.source.location.subdir_name(),
                                                    cache.dir().string(), stored.error())});
    }
    result.subdirs[source.request] = ShardedSubdir{cache.closure_json_path(subdir_url), source.fetched.source_url};
  }
  return result;
}

}  // namespace gpuenv::repodata
