// Every package a solve may use: the channels' records, the prefix's
// installed records and the machine's virtual packages, held in one libsolv
// pool (conda mode). libsolv stays behind this interface.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/repodata/repodata_records.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/package_record.hpp"
#include "gpuenv/system/virtual_packages.hpp"

namespace gpuenv::solver {

class PoolState;

// Where one repo's records come from: one subdir of one channel.
struct ChannelSubdir {
  // The channel's base URL ("https://conda.anaconda.org/conda-forge",
  // "file:///srv/channel"): what records report as their channel and what
  // channel-qualified specs (`conda-forge::numpy`) are matched against.
  std::string channel_url;
  // The name users know it by ("conda-forge"), for output.
  std::string channel_name;
  std::string subdir;  // "linux-64", "noarch"
  // The subdir's URL ending in '/': packages live here unless the
  // repodata's info.base_url says otherwise (CEP 15).
  std::string subdir_url;
  // The channel's place in the user's channel list: 0 is the first, most
  // preferred one. Subdirs of one channel share their rank.
  int channel_rank = 0;
};

struct LoadOptions {
  // Where loaded repodata is kept in libsolv's .solv form, so that the next
  // load of an unchanged repodata.json skips the JSON; empty: no cache.
  std::filesystem::path solv_cache_dir;
  // Named in messages: the URL the repodata came from.
  std::string source_label;
  bool only_tar_bz2 = false;
};

struct LoadReport {
  std::size_t records = 0;
  bool from_solv_cache = false;
  // Why the .solv cache was not used (none yet, written by another gpuenv,
  // unreadable); empty when it was.
  std::string solv_cache_note;
  // Why the fresh .solv cache could not be written; empty when it was.
  std::string solv_cache_write_error;
  // The records the repodata parser had to skip, with reasons.
  std::size_t skipped_records = 0;
  std::vector<repodata::SkippedRecord> first_skipped;
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

  // Adds records that are already in memory as one repo (tests, tiny
  // local indexes). `records[i].fn` names the file; the channel comes from
  // `source`.
  void add_records(const std::vector<specs::PackageRecord>& records, const ChannelSubdir& source);

  // The environment being changed: its installed records (from conda-meta)
  // and the virtual packages of the machine solved for. Replaces what an
  // earlier call set.
  void set_installed(const std::vector<specs::PackageRecord>& installed,
                     const std::vector<system::VirtualPackage>& virtual_packages);

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
  std::unique_ptr<PoolState> state_;
};

}  // namespace gpuenv::solver
