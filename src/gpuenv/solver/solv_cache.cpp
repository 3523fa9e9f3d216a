#include "gpuenv/solver/solv_cache.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace gpuenv::solver {
namespace {

// Bumped whenever RepoWriter stores records differently. 2: records whose
// file name is not their own bare name-version-build are left out, and an
// unreadable dependency (or a CEP 43 conditional one) makes its record
// uninstallable instead of vanishing. 3: legacy features become
// requirements on their trackers (feature_dependency). 4: dependencies
// with `(` groups or `===` are read through conda's grammar. 5: CEP 43
// conditional dependencies are solved (REL_COND), CEP 44/45 extras and
// flags in dependencies make their record uninstallable, records keep
// their flags.
constexpr const char* cache_format_version = "gpuenv-solv-5";

std::string cache_format() { return std::string(cache_format_version) + " libsolv-" + solv_version; }

// The index format itself is checked by RepodataIndex; this names the way
// gpuenv fills it (bump it when RawRecords come out differently). 2: the
// parser refuses records whose file name is not their own bare
// name-version-build. 3: and records holding a NUL character. 4: records
// carry CEP 45 flags, v3 records (CEP 48) and info.repodata_revisions are read.
constexpr const char* index_format_version = "gpuenv-index-4";

// FNV-1a: stable across runs and builds, unlike std::hash.
std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 1469598103934665603ull) {
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string source_prefix(const ChannelSubdir& source, const std::string& path) {
  return fmt::format("{:016x}", fnv1a(path, fnv1a(source.subdir_url + '\n')));
}

// Keeps libsolv's FILE* in one place and closed on every path.
struct File {
  std::FILE* handle = nullptr;
  ~File() {
    if (handle != nullptr) std::fclose(handle);
  }
};

}  // namespace

std::optional<SolvCacheEntry> solv_cache_entry(const std::filesystem::path& cache_dir,
                                               const std::filesystem::path& repodata_json,
                                               const ChannelSubdir& source, bool only_tar_bz2) {
  struct stat info {};
  if (::stat(repodata_json.c_str(), &info) != 0) return std::nullopt;
  SolvCacheEntry entry;
  std::error_code error;
  const auto absolute = std::filesystem::absolute(repodata_json, error);
  entry.source_path = (error ? repodata_json : absolute).string();
  entry.source_size = static_cast<std::uint64_t>(info.st_size);
  entry.source_mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 +
                          info.st_mtim.tv_nsec;
  entry.only_tar_bz2 = only_tar_bz2;
  const std::string version_key = fmt::format("{}\n{}\n{}\n{}", entry.source_size, entry.source_mtime_ns,
                                              only_tar_bz2 ? 1 : 0, cache_format());
  const std::string prefix = source_prefix(source, entry.source_path);
  entry.file = cache_dir / fmt::format("{}-{:016x}.solv", prefix, fnv1a(version_key));
  entry.index_file =
      cache_dir / fmt::format("{}-{:016x}.index", prefix, fnv1a(version_key + '\n' + index_format_version));
  entry.index_stamp = fmt::format("{}\n{}\n{}\n{}\n{}", index_format_version, entry.source_path, entry.source_size,
                                  entry.source_mtime_ns, only_tar_bz2 ? 1 : 0);
  return entry;
}

std::expected<void, std::string> read_solv_cache(PoolState& state, Repo* repo,
                                                 const SolvCacheEntry& entry) {
  File file{std::fopen(entry.file.c_str(), "rb")};
  if (file.handle == nullptr) {
    return std::unexpected(errno == ENOENT ? std::string("no cache yet")
                                           : "cannot open " + entry.file.string() + ": " +
                                                 std::strerror(errno));
  }
  if (repo_add_solv(repo, file.handle, 0) != 0) {
    const std::string reason = pool_errstr(state.pool);
    repo_empty(repo, 1);
    return std::unexpected("unreadable cache " + entry.file.string() + ": " + reason);
  }
  const char* format = repo_lookup_str(repo, SOLVID_META, state.keys.cache_format);
  const char* path = repo_lookup_str(repo, SOLVID_META, state.keys.cache_source_path);
  if (format == nullptr || format != cache_format() || path == nullptr || path != entry.source_path) {
    repo_empty(repo, 1);
    return std::unexpected("cache " + entry.file.string() + " was written for other data");
  }
  return {};
}

std::expected<void, std::string> write_solv_cache(PoolState& state, Repo* repo,
                                                  const SolvCacheEntry& entry) {
  repo_set_str(repo, SOLVID_META, state.keys.cache_format, cache_format().c_str());
  repo_set_str(repo, SOLVID_META, state.keys.cache_source_path, entry.source_path.c_str());
  repo_set_num(repo, SOLVID_META, state.keys.cache_source_size, entry.source_size);
  repo_set_num(repo, SOLVID_META, state.keys.cache_source_mtime,
               static_cast<unsigned long long>(entry.source_mtime_ns));
  repo_set_num(repo, SOLVID_META, state.keys.cache_only_tar_bz2, entry.only_tar_bz2 ? 1 : 0);
  repo_internalize(repo);

  const auto dir = entry.file.parent_path();
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return std::unexpected("cannot create " + dir.string() + ": " + error.message());
  const auto temporary = entry.file.string() + ".tmp." + std::to_string(::getpid());
  {
    File file{std::fopen(temporary.c_str(), "wb")};
    if (file.handle == nullptr) {
      return std::unexpected("cannot write " + temporary + ": " + std::strerror(errno));
    }
    if (repo_write(repo, file.handle) != 0 || std::fflush(file.handle) != 0) {
      const std::string reason = std::strerror(errno);
      std::filesystem::remove(temporary, error);
      return std::unexpected("cannot write " + temporary + ": " + reason);
    }
  }
  if (std::rename(temporary.c_str(), entry.file.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::filesystem::remove(temporary, error);
    return std::unexpected("cannot rename " + temporary + ": " + reason);
  }
  remove_stale_caches(entry.file, ".solv");
  return {};
}

void remove_stale_caches(const std::filesystem::path& current, std::string_view extension) {
  // Caches of earlier versions of the same repodata are dead weight now.
  const std::string prefix = current.filename().string().substr(0, 17);
  std::error_code error;
  for (const auto& item : std::filesystem::directory_iterator(current.parent_path(), error)) {
    const auto name = item.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(extension) && item.path() != current) {
      std::filesystem::remove(item.path(), error);
    }
  }
}

}  // namespace gpuenv::solver
