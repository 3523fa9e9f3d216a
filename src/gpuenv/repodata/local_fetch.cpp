#include "gpuenv/repodata/local_fetch.hpp"

#include <fmt/format.h>

#include <fstream>
#include <vector>

#include "gpuenv/repodata/body_writer.hpp"
#include "gpuenv/repodata/fetch_errors.hpp"

namespace gpuenv::repodata {
namespace {

constexpr std::size_t kShapeProbeBytes = 4096;

// A JSON used in place is not copied, so only its two ends are looked at:
// enough to reject an HTML page, an empty file or a file cut off while
// being written, without reading hundreds of MB.
std::optional<std::string> in_place_json_problem(const std::filesystem::path& path,
                                                 std::uint64_t size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot open " + path.string();
  JsonObjectShape shape;
  std::string buffer(static_cast<std::size_t>(std::min<std::uint64_t>(size, kShapeProbeBytes)), '\0');
  in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  shape.feed(buffer);
  if (size > kShapeProbeBytes) {
    const std::uint64_t tail = std::min<std::uint64_t>(size - kShapeProbeBytes, kShapeProbeBytes);
    in.seekg(static_cast<std::streamoff>(size - tail));
    buffer.assign(static_cast<std::size_t>(tail), '\0');
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    shape.feed(buffer);
  }
  if (!in) return "cannot read " + path.string();
  return shape.problem();
}

FetchError local_invalid_error(const FetchSubject& subject, const std::filesystem::path& path,
                               const std::string& why) {
  return FetchError{FetchErrorKind::invalid_body, subject.url, subject.channel,
                    fmt::format("could not use {} (channel {}): it is not complete repodata: {}: "
                                "re-index the channel",
                                path.string(), subject.channel, why)};
}

// The .zst's own identity, used as the validator of its decompressed copy.
std::string source_validator(const FileStamp& stamp) {
  return fmt::format("{}-{}", stamp.size, stamp.mtime_ns);
}

FetchResult decompress_into_cache(const SubdirLocation& location, const FetchSubject& subject,
                                  const std::filesystem::path& zst_path, const FileStamp& zst_stamp,
                                  const RepodataCache& cache) {
  const std::string zst_url = location.repodata_url(true);
  if (const auto cached = cache.load(location.url());
      cached && cached->state && cached->state->url == zst_url &&
      cached->state->etag == source_validator(zst_stamp)) {
    return FetchedRepodata{cached->json_path, RepodataOrigin::local, zst_url};
  }
  if (auto prepared = cache.prepare(); !prepared) return std::unexpected(cache_error(subject, cache.dir(), prepared.error()));
  auto file = cache.begin_write(location.url());
  if (!file) return std::unexpected(cache_error(subject, cache.dir(), file.error()));
  RepodataBodyWriter writer(std::move(*file), /*zstd_compressed=*/true);
  std::ifstream in(zst_path, std::ios::binary);
  std::vector<char> buffer(1 << 20);
  std::uint64_t read_total = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto count = static_cast<std::size_t>(in.gcount());
    if (count == 0) break;
    read_total += count;
    if (!writer.write(std::string_view(buffer.data(), count))) break;
  }
  if (auto checked = writer.finish(read_total, zst_stamp.size); !checked) {
    if (checked.error().local_io) return std::unexpected(cache_error(subject, cache.dir(), checked.error().message));
    return std::unexpected(local_invalid_error(subject, zst_path, checked.error().message));
  }
  RepodataState state;
  state.url = zst_url;
  state.etag = source_validator(zst_stamp);
  state.refreshed = std::chrono::system_clock::now();
  state.has_zst = VariantAvailability{true, state.refreshed};
  auto stored = cache.store(location.url(), writer.take_file(), std::move(state));
  if (!stored) return std::unexpected(cache_error(subject, cache.dir(), stored.error()));
  return FetchedRepodata{stored->json_path, RepodataOrigin::local, zst_url};
}

}  // namespace

FetchResult fetch_local_subdir(const SubdirLocation& location, const std::string& channel,
                               const RepodataCache& cache) {
  const auto json_path = location.local_dir() / "repodata.json";
  const auto zst_path = location.local_dir() / "repodata.json.zst";
  FetchSubject subject{location.local_dir().string(), channel, location.subdir_name()};
  if (const auto stamp = stamp_of(json_path)) {
    if (auto problem = in_place_json_problem(json_path, stamp->size)) {
      return std::unexpected(local_invalid_error(subject, json_path, *problem));
    }
    return FetchedRepodata{json_path, RepodataOrigin::local, location.repodata_url(false)};
  }
  if (const auto stamp = stamp_of(zst_path)) {
    return decompress_into_cache(location, subject, zst_path, *stamp, cache);
  }
  return std::unexpected(local_missing_error(subject, location.local_dir()));
}

}  // namespace gpuenv::repodata
