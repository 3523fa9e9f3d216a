#include "gpuenv/repodata/channel_index.hpp"

#include <fmt/core.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "gpuenv/repodata/channel_index_cache.hpp"
#include "gpuenv/repodata/indexed_package.hpp"
#include "gpuenv/repodata/shard_writer.hpp"
#include "gpuenv/repodata/zstd_stream.hpp"
#include "gpuenv/specs/package_filename.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::repodata {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kRepodataVersion = 1;     // conda-index's REPODATA_VERSION (no base_url)
constexpr int kRunExportsVersion = 1;   // conda-index's RUN_EXPORTS_VERSION (CEP 12)

std::size_t sum(const ChannelIndexResult& result, std::size_t SubdirIndexSummary::*field) {
  std::size_t total = 0;
  for (const auto& subdir : result.subdirs) total += subdir.*field;
  return total;
}

ChannelIndexError write_error(const std::string& why) {
  return {ChannelIndexError::Kind::write_failed,
          why + "; check that the channel directory is writable and the disk is not full"};
}

// The entry names of `dir`, sorted, or the reason it cannot be listed. A
// subdir that cannot be listed must not be indexed as empty: that would wipe
// its repodata.
std::expected<std::vector<std::string>, std::string> list_entries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    names.push_back(it->path().filename().string());
  }
  if (error) return std::unexpected(fmt::format("cannot list {}: {}", dir.string(), error.message()));
  std::sort(names.begin(), names.end());
  return names;
}

bool holds_package_files(const fs::path& dir) {
  const auto names = list_entries(dir);
  return names && std::any_of(names->begin(), names->end(), [](const std::string& name) {
           return specs::is_package_file_name(name);
         });
}

// Whether `path` (canonical) lies under `root` (canonical).
bool is_within(const fs::path& path, const fs::path& root) {
  const auto [root_end, path_at] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

// The identity of the package file at `path`, refusing links that leave the
// channel and anything that is not a regular file (a FIFO would block the read).
std::expected<ArchiveStamp, std::string> stamp_archive(const fs::path& path, const fs::path& root) {
  const auto shown = specs::printable(path.string());
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return std::unexpected(fmt::format("cannot read {}: {}", shown, std::strerror(errno)));
  if (S_ISLNK(info.st_mode)) {
    std::error_code error;
    const auto target = fs::canonical(path, error);
    if (error) return std::unexpected(fmt::format("{} is a symbolic link to nothing; delete it", shown));
    if (!is_within(target, root)) {
      return std::unexpected(fmt::format("{} is a symbolic link to {}, outside the channel {}; links out of the "
                                         "channel are not followed: copy the file into the channel instead",
                                         shown, specs::printable(target.string()), root.string()));
    }
    if (::stat(path.c_str(), &info) != 0) {
      return std::unexpected(fmt::format("cannot read {}: {}", shown, std::strerror(errno)));
    }
  }
  if (!S_ISREG(info.st_mode)) {
    return std::unexpected(fmt::format("{} is not a regular file; a package file must be one", shown));
  }
  return ArchiveStamp{static_cast<std::uint64_t>(info.st_size),
                      static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
}

// Writes `content` to `path` unless it already holds exactly that, so that an
// unchanged index keeps its mtime (and HTTP validators) as conda-index's does.
std::expected<bool, ChannelIndexError> write_if_changed(const fs::path& path, std::string_view content) {
  if (const auto existing = util::read_regular_file_at_most(path, content.size()); existing && *existing == content) {
    return false;
  }
  if (auto problem = util::write_file_atomically(path, content)) return std::unexpected(write_error(*problem));
  return true;
}

struct SubdirDocuments {
  std::string repodata;
  std::string run_exports;
};

// conda-index's layout: sorted keys, compact separators, non-ASCII escaped
// (Python's json.dumps(sort_keys=True, separators=(",", ":"))).
std::string dump_like_conda_index(const json& document) { return document.dump(-1, ' ', /*ensure_ascii=*/true); }

SubdirDocuments subdir_documents(const std::string& subdir, const IndexCache& packages) {
  json tar_bz2 = json::object();
  json conda = json::object();
  json tar_bz2_exports = json::object();
  json conda_exports = json::object();
  for (const auto& [filename, cached] : packages) {
    const bool is_conda = filename.ends_with(".conda");
    (is_conda ? conda : tar_bz2)[filename] = cached.package.record;
    (is_conda ? conda_exports : tar_bz2_exports)[filename] = {{"run_exports", cached.package.run_exports}};
  }
  const json repodata = {{"info", {{"subdir", subdir}}},
                         {"packages", std::move(tar_bz2)},
                         {"packages.conda", std::move(conda)},
                         {"removed", json::array()},
                         {"repodata_version", kRepodataVersion}};
  const json run_exports = {{"info", {{"subdir", subdir}, {"version", kRunExportsVersion}}},
                            {"packages", std::move(tar_bz2_exports)},
                            {"packages.conda", std::move(conda_exports)}};
  return {dump_like_conda_index(repodata), dump_like_conda_index(run_exports)};
}

class SubdirIndexer {
 public:
  SubdirIndexer(const fs::path& root, std::string subdir, ChannelIndexResult& result)
      : dir_(root / subdir), root_(root), subdir_(std::move(subdir)), result_(result) {}

  std::expected<void, ChannelIndexError> run(const ChannelIndexOptions& options) {
    summary_.subdir = subdir_;
    auto names = list_entries(dir_);
    if (!names) {
      report("", names.error() + "; its repodata was left as it was");
      return {};
    }
    auto previous = load_index_cache(dir_, subdir_);
    IndexCache current;
    for (const auto& name : *names) {
      if (!specs::is_package_file_name(name)) continue;
      if (auto package = index_file(name, previous)) current.emplace(name, std::move(*package));
    }
    const std::set<std::string> listed(names->begin(), names->end());
    for (const auto& [name, cached] : previous) {
      if (!listed.contains(name)) ++summary_.removed;
    }
    summary_.packages = current.size();
    if (auto written = write_outputs(current, options); !written) return std::unexpected(written.error());
    result_.subdirs.push_back(summary_);
    return {};
  }

 private:
  void report(const std::string& filename, std::string message) {
    result_.problems.push_back({subdir_, specs::printable(filename), std::move(message)});
  }

  std::optional<CachedPackage> index_file(const std::string& name, IndexCache& previous) {
    const auto path = dir_ / name;
    if (const auto why = specs::package_filename_problem(name); !why.empty()) {
      report(name, fmt::format("{}: {}; rename or delete it", specs::printable(path.string()), why));
      return std::nullopt;
    }
    auto stamp = stamp_archive(path, root_);
    if (!stamp) {
      report(name, stamp.error());
      return std::nullopt;
    }
    if (const auto it = previous.find(name); it != previous.end() && it->second.stamp == *stamp) {
      ++summary_.reused;
      return std::move(it->second);
    }
    auto package = read_indexed_package(path, name, subdir_);
    if (!package) {
      report(name, package.error());
      return std::nullopt;
    }
    ++summary_.read;
    return CachedPackage{*stamp, std::move(*package)};
  }

  std::expected<void, ChannelIndexError> write_outputs(const IndexCache& current, const ChannelIndexOptions& options) {
    const auto documents = subdir_documents(subdir_, current);
    const auto repodata_path = dir_ / "repodata.json";
    const auto zst_path = dir_ / "repodata.json.zst";
    // The .zst first: a reader that prefers it never sees it older than the
    // .json beside it for long. Recompressed only when the JSON changed or
    // the .zst is missing, as conda-index does.
    const auto existing = util::read_regular_file_at_most(repodata_path, documents.repodata.size());
    summary_.repodata_changed = !existing || *existing != documents.repodata;
    if (summary_.repodata_changed || !fs::exists(zst_path)) {
      if (auto problem = util::write_file_atomically(zst_path, zstd_compress(documents.repodata, options.zstd_level))) {
        return std::unexpected(write_error(*problem));
      }
    }
    if (summary_.repodata_changed) {
      if (auto problem = util::write_file_atomically(repodata_path, documents.repodata)) {
        return std::unexpected(write_error(*problem));
      }
    }
    if (auto written = write_if_changed(dir_ / "run_exports.json", documents.run_exports); !written) {
      return std::unexpected(written.error());
    }
    // Sharded repodata (CEP 16) beside repodata.json, for clients that fetch
    // only the names they need.
    std::map<std::string, json> records;
    for (const auto& [filename, cached] : current) records.emplace(filename, cached.package.record);
    if (auto shards = write_subdir_shards(dir_, subdir_, records, options.zstd_level); !shards) {
      return std::unexpected(write_error(shards.error()));
    }
    if (auto problem = save_index_cache(dir_, current)) return std::unexpected(write_error(*problem));
    return {};
  }

  fs::path dir_;
  fs::path root_;
  std::string subdir_;
  ChannelIndexResult& result_;
  SubdirIndexSummary summary_;
};

// The subdirs of the channel `root` to index: conda-index indexes the
// directories named like conda subdirs, and always noarch; other directories
// are not part of the channel. What cannot be indexed is added to `problems`.
std::set<std::string> discover_subdirs(const fs::path& root, const std::vector<std::string>& names,
                                       std::vector<ChannelIndexProblem>& problems) {
  std::set<std::string> subdirs = {"noarch"};
  std::error_code error;
  for (const auto& name : names) {
    if (name.starts_with('.') || !fs::is_directory(root / name, error)) continue;
    // The index writes into each subdir: one that is a link out of the
    // channel would have gpuenv write (and read) wherever it leads.
    if (const auto resolved = fs::canonical(root / name, error); error || !is_within(resolved, root)) {
      problems.push_back(
          {specs::printable(name), "",
           fmt::format("{} leads outside the channel {}; it was not indexed: make it a directory inside the channel",
                       specs::printable((root / name).string()), root.string())});
      subdirs.erase(name);  // noarch too
      continue;
    }
    if (specs::Platform::parse(name)) {
      subdirs.insert(name);
    } else if (holds_package_files(root / name)) {
      problems.push_back(
          {specs::printable(name), "",
           fmt::format("{} holds package files, but '{}' is not a conda subdir (linux-64, noarch, osx-arm64, ...), "
                       "so they were not indexed; move them into the subdir they were built for",
                       specs::printable((root / name).string()), specs::printable(name))});
    }
  }
  return subdirs;
}

}  // namespace

std::size_t ChannelIndexResult::packages() const { return sum(*this, &SubdirIndexSummary::packages); }
std::size_t ChannelIndexResult::read() const { return sum(*this, &SubdirIndexSummary::read); }
std::size_t ChannelIndexResult::reused() const { return sum(*this, &SubdirIndexSummary::reused); }
std::size_t ChannelIndexResult::removed() const { return sum(*this, &SubdirIndexSummary::removed); }

std::expected<ChannelIndexResult, ChannelIndexError> index_channel(const fs::path& channel_dir,
                                                                   const ChannelIndexOptions& options) {
  std::error_code error;
  const auto root = fs::canonical(channel_dir, error);
  if (error || !fs::is_directory(root, error)) {
    return std::unexpected(ChannelIndexError{
        ChannelIndexError::Kind::not_a_channel,
        fmt::format("{} is not a directory; name the channel directory, the one that holds linux-64/, noarch/, ...",
                    specs::printable(channel_dir.string()))});
  }
  // conda-index refuses a subdir too: indexing it as a channel would write
  // linux-64/noarch/repodata.json and leave the real channel unindexed.
  if (specs::Platform::parse(root.filename().string())) {
    return std::unexpected(ChannelIndexError{
        ChannelIndexError::Kind::not_a_channel,
        fmt::format("{} is a subdir, not a channel; name the channel directory that holds it: {}", root.string(),
                    root.parent_path().string())});
  }
  ChannelIndexResult result;
  result.channel = root;
  auto names = list_entries(root);
  if (!names) return std::unexpected(ChannelIndexError{ChannelIndexError::Kind::not_a_channel, names.error()});

  const auto subdirs = discover_subdirs(root, *names, result.problems);
  if (subdirs.contains("noarch") && !fs::create_directories(root / "noarch", error) && error) {
    return std::unexpected(write_error(fmt::format("cannot create {}: {}", (root / "noarch").string(), error.message())));
  }
  for (const auto& subdir : subdirs) {
    if (auto indexed = SubdirIndexer(root, subdir, result).run(options); !indexed) {
      return std::unexpected(indexed.error());
    }
  }
  return result;
}

}  // namespace gpuenv::repodata
