// Every package a solve may use: the channels' records, the prefix's
// installed records and the machine's virtual packages, held in one libsolv
// pool (conda mode). libsolv stays behind this interface.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuenv/repodata/channel_gateway.hpp"
#include "gpuenv/repodata/repodata_index.hpp"
#include "gpuenv/repodata/repodata_records.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/package_record.hpp"
#include "gpuenv/specs/virtual_package.hpp"

namespace gpuenv::solver {

class PoolState;

// Where one repo's records come from (the repodata gateway's subdir).
using ChannelSubdir = repodata::ChannelSubdir;

struct LoadOptions {
  // Where loaded repodata is kept in libsolv's .solv form, so that the next
  // load of an unchanged repodata.json skips the JSON; empty: no cache.
  std::filesystem::path solv_cache_dir;
  // Named in messages: the URL the repodata came from.
  std::string source_label;
  bool only_tar_bz2 = false;
};

struct LoadReport {
  std::size_t records = 0;  // loaded into the pool
  bool from_solv_cache = false;
  // Loaded from the subdir's per-name index (only the records a request can
  // reach); `subdir_records` is how many the subdir has in all.
  bool from_index = false;
  bool index_built = false;  // the index was (re)built from the JSON for this load
  // ... while the JSON downloaded (solver/index_alongside.hpp), not after.
  bool index_built_while_downloading = false;
  std::size_t subdir_records = 0;
  // Why the .solv cache was not used (none yet, written by another gpuenv,
  // unreadable); empty when it was.
  std::string solv_cache_note;
  // Why the fresh .solv cache could not be written; empty when it was.
  std::string solv_cache_write_error;
  // The records the repodata parser had to skip, with reasons.
  std::size_t skipped_records = 0;
  std::vector<repodata::SkippedRecord> first_skipped;
  // CEP 48's info.repodata_revisions: a `message` is shown to the user once.
  std::vector<repodata::RepodataRevision> revisions;
  double seconds = 0;
};

class PackageDatabase {
 public:
  PackageDatabase();
  ~PackageDatabase();
  PackageDatabase(PackageDatabase&&) noexcept;
  PackageDatabase& operator=(PackageDatabase&&) noexcept;

  // Loads one subdir's repodata.json, from the .solv cache when it is
  // current. Fails when the JSON cannot be parsed; the error names the
  // source and the byte offset.
  std::expected<LoadReport, repodata::RepodataError> add_repodata(
      const std::filesystem::path& repodata_json, const ChannelSubdir& source,
      const LoadOptions& options = {});

  // Loads some records of one subdir's index (file offsets, in document
  // order, e.g. from reachable_records) as one repo: the same solvables
  // add_repodata makes of them. Fails when the index is damaged there.
  std::expected<LoadReport, std::string> add_index_records(const repodata::RepodataIndex& index,
                                                           std::span<const std::uint64_t> offsets,
                                                           const ChannelSubdir& source);

  // Loads, from the subdirs' indexes (one repo each, in order), the records
  // `roots` can reach (package_closure.hpp), and keeps the indexes: when
  // set_installed later brings installed packages the closure does not
  // cover, their names join the roots and the channel repos are loaded
  // again, so an update or removal sees what a full load would show it.
  // Must come before any other repo is added. nullopt when the closure
  // cannot be taken from the indexes (a dependency on a name pattern, a
  // damaged index): the caller loads everything instead.
  std::optional<std::expected<std::vector<LoadReport>, std::string>> add_reachable_records(
      std::vector<std::shared_ptr<const repodata::RepodataIndex>> indexes, std::vector<ChannelSubdir> sources,
      std::vector<specs::MatchSpec> roots, bool follow_dependencies);

  // Adds records that are already in memory as one repo (tests, tiny
  // local indexes). `records[i].fn` names the file; the channel comes from
  // `source`.
  void add_records(const std::vector<specs::PackageRecord>& records, const ChannelSubdir& source);

  // The environment being changed: its installed records (from conda-meta)
  // and the virtual packages of the machine solved for. Replaces what an
  // earlier call set.
  void set_installed(const std::vector<specs::PackageRecord>& installed,
                     const std::vector<specs::VirtualPackage>& virtual_packages);

  // Every channel record the spec matches (installed and virtual packages
  // excluded), newest first: higher version, then build number, then the
  // more preferred channel.
  std::vector<specs::PackageRecord> search(const specs::MatchSpec& spec) const;

  // Records in channel repos.
  std::size_t channel_record_count() const;

  // For the solver module's own files.
  PoolState& state() { return *state_; }
  const PoolState& state() const { return *state_; }

 private:
  struct ReachableChannels;
  std::optional<std::expected<std::vector<LoadReport>, std::string>> load_reachable();
  void extend_reachable_to(const std::vector<specs::PackageRecord>& installed);

  std::unique_ptr<PoolState> state_;
  // Set by add_reachable_records.
  std::unique_ptr<ReachableChannels> reachable_;
};

}  // namespace gpuenv::solver
