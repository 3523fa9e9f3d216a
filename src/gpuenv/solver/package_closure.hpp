// Which channel records a request can reach: the names its specs select,
// then, transitively, every name a record of a reached name depends on --
// all records of each reached name, in every subdir, so that a solve over
// them finds what a solve over the whole channel finds. `constrains` add no
// names: a constraint on a package that nothing installs never matters, and
// one on a package that can be installed is already in the closure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/repodata/repodata_index.hpp"
#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::solver {

// The package a dependency string names, as libsolv's conda parser reads it
// (the name up to the version, lower-cased; after a channel prefix; through
// conda's grammar when the spec has brackets or `::`, as the solver does):
// "numpy >=1.21,<2" -> "numpy". nullopt when the name is a glob or regex,
// which may match any package; "" when the text names nothing usable (the
// solver drops such a dependency).
std::optional<std::string> dependency_package_name(std::string_view dependency);

struct ReachableRecords {
  // Per index (in the order given), the file offsets of the records to
  // load, in document order.
  std::vector<std::vector<std::uint64_t>> offsets;
  std::size_t names = 0;  // names reached (with or without records)
  // A dependency on a name pattern was reached: any record may matter, so
  // the caller loads everything.
  bool needs_everything = false;
  // An index record could not be decoded: the caller rebuilds or falls back.
  bool damaged = false;
};

// `follow_dependencies` false: only the names the specs select (a search).
// `root_names`: more names to start from (installed packages).
ReachableRecords reachable_records(std::span<const repodata::RepodataIndex* const> indexes,
                                   std::span<const specs::MatchSpec> roots, bool follow_dependencies,
                                   std::span<const std::string> root_names = {});

// Every record of the indexes, as reachable_records hands them out.
ReachableRecords all_records(std::span<const repodata::RepodataIndex* const> indexes);

}  // namespace gpuenv::solver
