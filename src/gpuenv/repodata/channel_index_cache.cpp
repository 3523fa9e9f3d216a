#include "gpuenv/repodata/channel_index_cache.hpp"

#include "gpuenv/specs/package_filename.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::repodata {

namespace {

using nlohmann::json;

// Bumped when what the indexer puts into a record changes, so that records
// cached by an older gpuenv are rebuilt rather than served.
constexpr int kCacheVersion = 1;
// About 2 KiB per package: room for a few hundred thousand packages.
constexpr std::uintmax_t kMaxCacheBytes = 1ull << 30;

std::optional<CachedPackage> read_entry(const std::string& filename, const json& entry, std::string_view subdir) {
  if (!entry.is_object() || !specs::package_filename_problem(filename).empty()) return std::nullopt;
  const auto size = entry.find("size");
  const auto mtime = entry.find("mtime_ns");
  const auto record = entry.find("record");
  const auto run_exports = entry.find("run_exports");
  if (size == entry.end() || !size->is_number_unsigned() || mtime == entry.end() || !mtime->is_number_integer() ||
      record == entry.end() || run_exports == entry.end() || !run_exports->is_object()) {
    return std::nullopt;
  }
  if (!cached_record_problem(*record, filename, subdir).empty()) return std::nullopt;
  // The record describes the bytes the stamp names, or it is not this file's.
  if (record->at("size") != *size) return std::nullopt;
  CachedPackage cached;
  cached.stamp = {size->get<std::uint64_t>(), mtime->get<std::int64_t>()};
  cached.package.record = *record;
  cached.package.run_exports = *run_exports;
  return cached;
}

}  // namespace

std::filesystem::path index_cache_path(const std::filesystem::path& subdir_dir) {
  return subdir_dir / ".cache" / "gpuenv-index.json";
}

IndexCache load_index_cache(const std::filesystem::path& subdir_dir, std::string_view subdir) {
  IndexCache cache;
  const auto text = util::read_regular_file_at_most(index_cache_path(subdir_dir), kMaxCacheBytes);
  if (!text) return cache;
  const auto document = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object() || document.value("version", 0) != kCacheVersion) return cache;
  const auto packages = document.find("packages");
  if (packages == document.end() || !packages->is_object()) return cache;
  for (const auto& [filename, entry] : packages->items()) {
    if (auto cached = read_entry(filename, entry, subdir)) cache.emplace(filename, std::move(*cached));
  }
  return cache;
}

std::optional<std::string> save_index_cache(const std::filesystem::path& subdir_dir, const IndexCache& cache) {
  json packages = json::object();
  for (const auto& [filename, cached] : cache) {
    packages[filename] = {{"size", cached.stamp.size},
                          {"mtime_ns", cached.stamp.mtime_ns},
                          {"record", cached.package.record},
                          {"run_exports", cached.package.run_exports}};
  }
  const json document = {{"version", kCacheVersion}, {"packages", std::move(packages)}};
  return util::write_file_atomically(index_cache_path(subdir_dir), document.dump());
}

}  // namespace gpuenv::repodata
