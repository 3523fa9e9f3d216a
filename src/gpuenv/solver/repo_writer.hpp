// Internal to the solver module (includes libsolv): package records written
// into one libsolv repo. RawRecords from the repodata parser are the hot
// path: every string is interned through the pool straight from the parsed
// document's views, nothing is copied per record.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "gpuenv/repodata/repodata_records.hpp"
#include "gpuenv/solver/dependency_interner.hpp"
#include "gpuenv/solver/pool_state.hpp"

namespace gpuenv::solver {

class RepoWriter : public repodata::RecordSink {
 public:
  RepoWriter(PoolState& state, Repo* repo);

  // Records the repodata's info for the repo's facts (subdir, CEP 15
  // base_url) and for a .solv cache of it.
  void on_header(const repodata::RepodataHeader& header) override;
  void on_record(const repodata::RawRecord& record) override;

  // A record from memory: installed records (which keep their own channel
  // and URL) and in-memory channels.
  Id add(const specs::PackageRecord& record, bool keep_origin);

  // Moves the written attributes into libsolv's compact storage.
  void finish();

  std::size_t unreadable_dependencies() const noexcept { return dependencies_.unreadable(); }

 private:
  struct Identity {
    std::string_view name, version, build, filename, subdir;
    std::uint64_t build_number = 0;
  };
  Id write(const repodata::RawRecord& record, bool cache_dependencies);
  Id add_identity(const Identity& identity);
  Id build_number_id(std::uint64_t number);
  void set_checksum(Id solvable, Id key, Id type, std::string_view hex, std::size_t bytes);
  Id intern(std::string_view text) {
    return pool_strn2id(state_.pool, text.data(), static_cast<unsigned int>(text.size()), 1);
  }

  PoolState& state_;
  Repo* repo_;
  Repodata* data_;
  DependencyInterner dependencies_;
  Id repo_subdir_ = 0;
  std::array<Id, 256> small_build_numbers_{};
  std::string scratch_;
};

}  // namespace gpuenv::solver
