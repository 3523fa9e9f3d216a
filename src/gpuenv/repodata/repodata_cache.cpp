#include "gpuenv/repodata/repodata_cache.hpp"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "gpuenv/specs/url_credentials.hpp"
#include "gpuenv/util/hex.hpp"

namespace gpuenv::repodata {
namespace {

std::string md5_hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_md5(), nullptr);
  return util::hex_string(digest, length);
}

std::optional<std::string> read_small_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return std::move(buffer).str();
}

}  // namespace

std::optional<FileStamp> stamp_of(const std::filesystem::path& path) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  return FileStamp{static_cast<std::uint64_t>(info.st_size),
                   static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 +
                       info.st_mtim.tv_nsec};
}

RepodataCache::RepodataCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

std::string RepodataCache::key_for(const std::string& subdir_url) {
  std::string url = subdir_url;
  if (url.empty() || url.back() != '/') url += '/';
  return md5_hex(url).substr(0, 8);
}

std::filesystem::path RepodataCache::json_path(const std::string& subdir_url) const {
  return dir_ / (key_for(subdir_url) + ".json");
}

std::filesystem::path RepodataCache::state_path(const std::string& subdir_url) const {
  return dir_ / (key_for(subdir_url) + ".state.json");
}

std::expected<void, std::string> RepodataCache::prepare() const {
  if (dir_.empty()) return std::unexpected(std::string("no repodata cache directory is configured"));
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) {
    return std::unexpected("cannot create the repodata cache directory " + dir_.string() + ": " +
                           error.message());
  }
  return {};
}

std::optional<CacheEntry> RepodataCache::load(const std::string& subdir_url) const {
  CacheEntry entry{json_path(subdir_url), std::nullopt};
  const auto stamp = stamp_of(entry.json_path);
  if (!stamp) return std::nullopt;
  const auto text = read_small_file(state_path(subdir_url));
  if (!text) return entry;
  auto state = parse_state(*text);
  // The 8-hex key can collide, and a crash between renaming the JSON and
  // writing its state leaves the previous state behind: either way the state
  // does not describe this file, and its validators must not be trusted.
  const bool describes_this_file = state && state->url.starts_with(specs::mask_credentials(subdir_url)) &&
                                   state->size == stamp->size &&
                                   state->mtime_ns == stamp->mtime_ns;
  if (describes_this_file) entry.state = std::move(*state);
  return entry;
}

std::expected<PartialFile, std::string> RepodataCache::begin_write(
    const std::string& subdir_url) const {
  return PartialFile::create_beside(json_path(subdir_url));
}

std::expected<CacheEntry, std::string> RepodataCache::store(const std::string& subdir_url,
                                                            PartialFile json,
                                                            RepodataState state) const {
  if (auto committed = json.commit(); !committed) return std::unexpected(committed.error());
  CacheEntry entry{json_path(subdir_url), std::nullopt};
  const auto stamp = stamp_of(entry.json_path);
  if (!stamp) return std::unexpected("the cached file " + entry.json_path.string() + " vanished");
  state.size = stamp->size;
  state.mtime_ns = stamp->mtime_ns;
  if (auto written = write_state(subdir_url, state); !written) {
    return std::unexpected(written.error());
  }
  entry.state = std::move(state);
  return entry;
}

std::expected<void, std::string> RepodataCache::write_state(const std::string& subdir_url,
                                                            const RepodataState& state) const {
  auto file = PartialFile::create_beside(state_path(subdir_url));
  if (!file) return std::unexpected(file.error());
  if (!file->write(serialize_state(state))) return std::unexpected(file->error());
  return file->commit();
}

}  // namespace gpuenv::repodata
