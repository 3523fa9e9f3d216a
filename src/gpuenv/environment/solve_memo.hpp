// Answers of earlier solves, kept under <cache>/solves and keyed by
// everything a solve reads, so that asking the same again (a warm
// `create --dry-run`, CI re-running one environment) skips loading the
// records and solving: about 20 ms of a 40 ms warm run on the bench request.
//
// The key is the sha256 of:
// - this gpuenv binary (version, and the executable's inode, size and mtime:
//   another build may solve differently);
// - the records the load would add (solver::loaded_records_identity: the
//   options that choose them, and each subdir's repodata file with its size,
//   times and inode, which any rewrite changes);
// - the request (every spec as written and as conda prints it, pins, update
//   and remove lists, channel priority), the installed records (all fields),
//   the virtual packages, the platform and the channel context.
// Only successful solves whose load told the user nothing are kept (no
// skipped records, no channel message): a hit has nothing to repeat. A
// record is kept only when its JSON reads back equal, field for field.
// The setting gpuenv_solve_memo (CONDA_GPUENV_SOLVE_MEMO) false turns it off.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/solver/machine_facts.hpp"
#include "gpuenv/solver/solver.hpp"
#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::environment {

struct SolveMemoInputs {
  std::string_view loaded_records;  // solver::loaded_records_identity
  const solver::SolveRequest& request;
  const std::vector<specs::PackageRecord>& installed;
  const solver::MachineFacts& machine;
  const specs::ChannelContext& channel_context;
};

// The hex key of a solve, or nullopt when one of its inputs cannot be
// written down whole (an installed record whose JSON does not read back
// equal, an executable that cannot be stat'ed).
std::optional<std::string> solve_memo_key(const SolveMemoInputs& inputs);

class SolveMemo {
 public:
  // At most this many answers are kept: the oldest go first.
  static constexpr std::size_t max_entries = 64;
  // A file bigger than this is not read (a solution of thousands of
  // packages is a few MB).
  static constexpr std::uintmax_t max_entry_bytes = 32u << 20;

  explicit SolveMemo(std::filesystem::path directory);

  // The answer kept under `key`; nullopt when there is none, or it cannot be
  // read (damaged, another format): the caller solves.
  std::optional<solver::Solution> find(const std::string& key) const;

  // Keeps `solution` under `key` (written atomically). Best effort: an
  // answer that cannot be written costs the next run a solve, nothing else.
  void store(const std::string& key, const solver::Solution& solution) const;

 private:
  std::filesystem::path directory_;
};

}  // namespace gpuenv::environment
