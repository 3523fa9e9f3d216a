#include "gpuenv/solver/channel_loader.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <thread>

#include "gpuenv/repodata/channel_gateway.hpp"
#include "gpuenv/repodata/repodata_index.hpp"
#include "gpuenv/solver/index_alongside.hpp"
#include "gpuenv/solver/package_closure.hpp"
#include "gpuenv/solver/solv_cache.hpp"
#include "gpuenv/specs/package_filename.hpp"

namespace gpuenv::solver {
namespace {

using repodata::FetchedSubdir;

std::string skipped_warning(const ChannelSubdir& source, const std::string& label, const LoadReport& report) {
  std::string examples;
  for (const auto& skipped : report.first_skipped) {
    examples += fmt::format("{}'{}' ({})", examples.empty() ? "" : ", ", specs::printable(skipped.filename),
                            skipped.reason);
  }
  return fmt::format("channel {}, subdir {} ({}): skipped {} unusable record(s): {}", source.channel_name,
                     source.subdir, label, report.skipped_records, examples);
}

// Every record of every subdir, from .solv caches or the JSON.
std::expected<void, std::string> load_everything(PackageDatabase& database, const std::vector<FetchedSubdir>& subdirs,
                                                 const ChannelLoadOptions& options, ChannelLoadResult& result) {
  LoadOptions load_options;
  if (!options.cache_dir.empty()) load_options.solv_cache_dir = options.cache_dir / "solv";
  for (const auto& subdir : subdirs) {
    load_options.source_label = subdir.label;
    auto loaded = database.add_repodata(subdir.json, subdir.source, load_options);
    if (!loaded) return std::unexpected(loaded.error().message);
    if (loaded->skipped_records > 0) {
      result.warnings.push_back(skipped_warning(subdir.source, subdir.label, *loaded));
    }
    if (!loaded->solv_cache_write_error.empty()) result.warnings.push_back(loaded->solv_cache_write_error);
    result.subdirs.push_back({subdir.source, std::move(*loaded)});
  }
  return {};
}

enum class ReachableLoad { done, load_everything };

// Only what options.reachable_from can reach, through each subdir's index:
// opened when current, else built from the JSON (the subdirs in parallel).
// Falls back to load_everything when an index cannot be had (the cache is
// not writable, a damaged file) or a dependency names a pattern; nothing is
// added to the database before that is known.
std::expected<ReachableLoad, std::string> load_reachable(PackageDatabase& database,
                                                         const std::vector<FetchedSubdir>& subdirs,
                                                         const ChannelLoadOptions& options,
                                                         ChannelLoadResult& result) {
  const auto cache_dir = options.cache_dir / "solv";
  std::vector<SolvCacheEntry> entries;
  for (const auto& subdir : subdirs) {
    auto entry = solv_cache_entry(cache_dir, subdir.json, subdir.source, false);
    if (!entry) return ReachableLoad::load_everything;  // the JSON cannot be stat'ed: let the parser say why
    entries.push_back(std::move(*entry));
  }

  std::vector<std::optional<repodata::RepodataIndex>> indexes(subdirs.size());
  std::vector<std::size_t> to_build;
  for (std::size_t i = 0; i < subdirs.size(); ++i) {
    if (auto opened = repodata::RepodataIndex::open(entries[i].index_file, entries[i].index_stamp)) {
      indexes[i] = std::move(*opened);
    } else {
      to_build.push_back(i);
    }
  }
  // Parsing is the cold path's biggest cost; subdirs are independent.
  std::vector<std::expected<repodata::ParseSummary, repodata::IndexBuildError>> built(
      to_build.size(), std::unexpected(repodata::IndexBuildError{}));
  {
    const auto build = [&](std::size_t slot) {
      const std::size_t i = to_build[slot];
      repodata::IndexBuildOptions build_options;
      build_options.source_label = subdirs[i].label;
      build_options.stamp = entries[i].index_stamp;
      built[slot] = repodata::build_repodata_index(subdirs[i].json, entries[i].index_file, build_options);
    };
    std::vector<std::jthread> workers;
    for (std::size_t slot = 1; slot < to_build.size(); ++slot) workers.emplace_back(build, slot);
    if (!to_build.empty()) build(0);
  }
  for (std::size_t slot = 0; slot < to_build.size(); ++slot) {
    const std::size_t i = to_build[slot];
    if (!built[slot]) {
      if (built[slot].error().json_invalid) return std::unexpected(built[slot].error().error.message);
      result.warnings.push_back(fmt::format("cannot keep an index of {}: {}", subdirs[i].label,
                                            built[slot].error().error.message));
      return ReachableLoad::load_everything;
    }
    remove_stale_caches(entries[i].index_file, ".index");
    auto opened = repodata::RepodataIndex::open(entries[i].index_file, entries[i].index_stamp);
    if (!opened) {
      result.warnings.push_back(opened.error());
      return ReachableLoad::load_everything;
    }
    indexes[i] = std::move(*opened);
  }

  std::vector<std::shared_ptr<const repodata::RepodataIndex>> shared;
  std::vector<ChannelSubdir> sources;
  for (std::size_t i = 0; i < subdirs.size(); ++i) {
    shared.push_back(std::make_shared<const repodata::RepodataIndex>(std::move(*indexes[i])));
    sources.push_back(subdirs[i].source);
  }
  auto loaded = database.add_reachable_records(std::move(shared), std::move(sources), *options.reachable_from,
                                               options.follow_dependencies);
  if (!loaded) return ReachableLoad::load_everything;
  if (!*loaded) return std::unexpected(loaded->error());
  for (std::size_t i = 0; i < subdirs.size(); ++i) {
    auto& report = (**loaded)[i];
    report.index_built_while_downloading = subdirs[i].index_built_alongside;
    report.index_built = subdirs[i].index_built_alongside ||
                         std::find(to_build.begin(), to_build.end(), i) != to_build.end();
    if (report.skipped_records > 0) {
      result.warnings.push_back(skipped_warning(subdirs[i].source, subdirs[i].label, report));
    }
    result.subdirs.push_back({subdirs[i].source, std::move(report)});
  }
  return ReachableLoad::done;
}

// Sharded repodata can deliver exactly the records a request reaches, when
// each spec names one package (a pattern such as `py*` needs every name).
std::optional<repodata::ShardedClosureRequest> shard_request_for(const ChannelLoadOptions& options) {
  if (!options.reachable_from || options.cache_dir.empty()) return std::nullopt;
  repodata::ShardedClosureRequest request;
  for (const auto& spec : *options.reachable_from) {
    const auto exact = spec.name().exact_value();
    if (!exact) return std::nullopt;
    request.root_names.emplace_back(*exact);
  }
  request.root_names.insert(request.root_names.end(), options.installed_names.begin(), options.installed_names.end());
  request.follow_dependencies = options.follow_dependencies;
  request.dependency_name = [](std::string_view dependency) { return dependency_package_name(dependency); };
  return request;
}

}  // namespace

std::expected<repodata::FetchedChannels, std::string> fetch_for_loading(const ChannelLoadOptions& options) {
  repodata::GatewayRequest request;
  request.channels = options.channels;
  request.context = options.context;
  request.platform = options.platform;
  request.cache_dir = options.cache_dir.empty() ? std::filesystem::path() : options.cache_dir / "repodata";
  request.offline = options.offline;
  request.observer = options.fetch_observer;
  request.client = options.client;
  request.shards = shard_request_for(options);
  request.revalidate_alongside = options.revalidate_alongside;
  // A whole repodata.json downloaded for a closure load: its index is built
  // while it arrives (index_alongside.hpp).
  std::optional<IndexBuildsAlongside> alongside;
  if (options.reachable_from && !options.cache_dir.empty()) {
    alongside.emplace(options.cache_dir / "solv");
    request.on_json_download = [&alongside](const repodata::JsonDownload& download) { alongside->start(download); };
  }
  auto fetched = repodata::fetch_channels(request);
  if (fetched && alongside) alongside->settle(fetched->subdirs);
  return fetched;
}

std::expected<ChannelLoadResult, std::string> load_fetched(PackageDatabase& database,
                                                           repodata::FetchedChannels fetched,
                                                           const ChannelLoadOptions& options) {
  ChannelLoadResult result;
  result.credentials = std::move(fetched.credentials);
  result.revalidation = std::move(fetched.revalidation);
  const auto& subdirs = fetched.subdirs;
  if (options.reachable_from && !options.cache_dir.empty()) {
    auto loaded = load_reachable(database, subdirs, options, result);
    if (!loaded) return std::unexpected(loaded.error());
    if (*loaded == ReachableLoad::done) return result;
  }
  if (auto loaded = load_everything(database, subdirs, options, result); !loaded) {
    return std::unexpected(loaded.error());
  }
  return result;
}

std::expected<ChannelLoadResult, std::string> load_channels(PackageDatabase& database,
                                                            const ChannelLoadOptions& options) {
  auto fetched = fetch_for_loading(options);
  if (!fetched) return std::unexpected(fetched.error());
  return load_fetched(database, std::move(*fetched), options);
}

std::optional<std::string> loaded_records_identity(const repodata::FetchedChannels& fetched,
                                                   const ChannelLoadOptions& options) {
  if (!options.reachable_from || options.cache_dir.empty()) return std::nullopt;
  // Each part is written as <length>:<bytes> and each list ends in '|', so
  // that no two different inputs join into the same text, whatever bytes
  // the values hold.
  std::string identity = "records-2|";
  const auto part = [&identity](std::string_view value) {
    identity += std::to_string(value.size());
    identity += ':';
    identity.append(value);
  };
  part(options.platform);
  part(options.follow_dependencies ? "follow" : "names");
  for (const auto& spec : *options.reachable_from) {
    part(spec.original());
    part(spec.str());
  }
  identity += '|';
  for (const auto& name : options.installed_names) part(name);
  identity += '|';
  for (const auto& subdir : fetched.subdirs) {
    // Every field by name: a new one stops this compiling until it joins.
    const auto& [channel_url, channel_name, subdir_name, subdir_url, channel_rank] = subdir.source;
    for (const auto* value : {&channel_url, &channel_name, &subdir_name, &subdir_url}) part(*value);
    part(std::to_string(channel_rank));
    part(subdir.sharded ? "sharded" : "whole");
    struct stat info {};
    if (::stat(subdir.json.c_str(), &info) != 0) return std::nullopt;
    std::error_code error;
    const auto absolute = std::filesystem::absolute(subdir.json, error);
    part((error ? subdir.json : absolute).string());
    part(fmt::format("{} {}.{:09} {}.{:09} {} {}", info.st_size, info.st_mtim.tv_sec, info.st_mtim.tv_nsec,
                     info.st_ctim.tv_sec, info.st_ctim.tv_nsec, info.st_dev, info.st_ino));
    identity += '|';
  }
  return identity;
}

ChannelLoadResult result_without_records(repodata::FetchedChannels fetched) {
  ChannelLoadResult result;
  for (auto& subdir : fetched.subdirs) result.subdirs.push_back({std::move(subdir.source), LoadReport{}});
  result.credentials = std::move(fetched.credentials);
  result.revalidation = std::move(fetched.revalidation);
  return result;
}

}  // namespace gpuenv::solver
