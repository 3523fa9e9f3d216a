#include "gpuenv/repodata/shard_cache.hpp"

#include <fmt/format.h>

#include <chrono>

#include "gpuenv/repodata/repodata_cache.hpp"
#include "gpuenv/specs/url_credentials.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::repodata {
namespace {

namespace fs = std::filesystem;

// A 404 for a subdir's index is remembered this long: a channel that starts
// publishing shards is picked up within a day, and a channel without them
// does not cost a round trip per run.
constexpr std::chrono::hours kNoShardsRecheck{24};

std::expected<void, std::string> write(const fs::path& path, std::string_view content) {
  if (auto problem = util::write_file_atomically(path, content)) return std::unexpected(*problem);
  return {};
}

std::string version_of(const FileStamp& stamp) { return fmt::format("{}-{}", stamp.size, stamp.mtime_ns); }

}  // namespace

std::expected<void, std::string> ShardCache::prepare() const {
  std::error_code error;
  fs::create_directories(dir_, error);
  if (error) return std::unexpected(fmt::format("cannot create the shard cache {}: {}", dir_.string(), error.message()));
  return {};
}

fs::path ShardCache::file(const std::string& subdir_url, std::string_view suffix) const {
  return dir_ / (RepodataCache::key_for(specs::mask_credentials(subdir_url)) + std::string(suffix));
}

std::optional<std::string> ShardCache::read_shard(const ShardHash& hash, std::size_t max_bytes) const {
  auto bytes = util::read_regular_file_at_most(dir_ / (hex_of(hash) + ".msgpack.zst"), max_bytes);
  if (!bytes) return std::nullopt;
  return std::move(*bytes);
}

std::expected<void, std::string> ShardCache::store_shard(const ShardHash& hash, std::string_view bytes) const {
  return write(dir_ / (hex_of(hash) + ".msgpack.zst"), bytes);
}

bool ShardCache::has_index(const std::string& subdir_url) const {
  return stamp_of(file(subdir_url, ".index.msgpack.zst")).has_value();
}

std::optional<CachedShardIndex> ShardCache::load_index(const std::string& subdir_url, std::size_t max_bytes) const {
  const fs::path path = file(subdir_url, ".index.msgpack.zst");
  const auto stamp = stamp_of(path);
  if (!stamp) return std::nullopt;
  auto bytes = util::read_regular_file_at_most(path, max_bytes);
  if (!bytes) return std::nullopt;
  CachedShardIndex cached{std::move(*bytes), std::nullopt, version_of(*stamp)};
  if (auto text = util::read_regular_file_at_most(file(subdir_url, ".index.state.json"), 1 << 16)) {
    auto state = parse_state(*text);
    // Validators of another version of the file (a crash between the two
    // renames) must not be sent.
    if (state && state->size == stamp->size && state->mtime_ns == stamp->mtime_ns) cached.state = std::move(*state);
  }
  return cached;
}

std::expected<std::string, std::string> ShardCache::store_index(const std::string& subdir_url, std::string_view bytes,
                                                                RepodataState state) const {
  const fs::path path = file(subdir_url, ".index.msgpack.zst");
  if (auto written = write(path, bytes); !written) return std::unexpected(written.error());
  const auto stamp = stamp_of(path);
  if (!stamp) return std::unexpected(fmt::format("the cached file {} vanished", path.string()));
  state.size = stamp->size;
  state.mtime_ns = stamp->mtime_ns;
  if (auto written = write_index_state(subdir_url, state); !written) return std::unexpected(written.error());
  std::error_code ignored;
  fs::remove(file(subdir_url, ".no-shards"), ignored);
  return version_of(*stamp);
}

std::expected<void, std::string> ShardCache::write_index_state(const std::string& subdir_url,
                                                               const RepodataState& state) const {
  return write(file(subdir_url, ".index.state.json"), serialize_state(state));
}

bool ShardCache::known_without_shards(const std::string& subdir_url) const {
  std::error_code error;
  const auto written = fs::last_write_time(file(subdir_url, ".no-shards"), error);
  if (error) return false;
  return fs::file_time_type::clock::now() - written < kNoShardsRecheck;
}

void ShardCache::remember_without_shards(const std::string& subdir_url) const {
  (void)write(file(subdir_url, ".no-shards"), "");  // only saves a request next time
}

fs::path ShardCache::closure_json_path(const std::string& subdir_url) const { return file(subdir_url, ".closure.json"); }

std::optional<std::string> ShardCache::closure_key(const std::string& subdir_url) const {
  if (!stamp_of(closure_json_path(subdir_url))) return std::nullopt;
  auto key = util::read_regular_file_at_most(file(subdir_url, ".closure.key"), 1 << 20);
  if (!key) return std::nullopt;
  return std::move(*key);
}

std::expected<void, std::string> ShardCache::store_closure(const std::string& subdir_url, std::string_view json,
                                                           std::string_view key) const {
  const fs::path path = closure_json_path(subdir_url);
  // The old key goes first: a crash before the new one is written must not
  // leave it describing the new JSON.
  std::error_code ignored;
  fs::remove(file(subdir_url, ".closure.key"), ignored);
  const auto existing = util::read_regular_file_at_most(path, json.size());
  if (!existing || *existing != json) {
    if (auto written = write(path, json); !written) return written;
  }
  return write(file(subdir_url, ".closure.key"), key);
}

}  // namespace gpuenv::repodata
