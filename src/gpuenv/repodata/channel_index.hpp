// The channel index writer: turns a directory of package files laid out as a
// conda channel (<dir>/<subdir>/*.conda, *.tar.bz2) into the repodata that
// conda, mamba, rattler and gpuenv read, as conda-index does
// (docs/channel-index.md says which of its behaviours are followed).
//
// Per subdir it writes repodata.json, repodata.json.zst, run_exports.json and
// the sharded repodata of CEP 16 (repodata_shards.msgpack.zst, shards/),
// each atomically (temporary file + rename), and only when its content
// changed. A per-subdir cache (<subdir>/.cache/gpuenv-index.json) keyed by
// file name, size and modification time means an unchanged archive is
// neither read nor hashed again.
//
// Package files are hostile input: an archive that cannot be read, whose
// info/index.json is missing, invalid, oversized or names another subdir,
// or whose file name is not <name>-<version>-<build>, is reported as a
// problem and left out of the repodata. Symbolic links (to package files or
// to subdirs) that lead outside the channel directory are not followed.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

namespace gpuenv::repodata {

struct ChannelIndexOptions {
  // zstd level of repodata.json.zst; conda-index's choice (16) by default.
  int zstd_level = 16;
};

// One package file (or directory) that could not be indexed.
struct ChannelIndexProblem {
  std::string subdir;   // "linux-64"
  std::string file;     // the file name inside the subdir, printable
  std::string message;  // names the file, says what is wrong and what to do
};

// What indexing one subdir did.
struct SubdirIndexSummary {
  std::string subdir;
  std::size_t packages = 0;  // records in the repodata.json written
  std::size_t read = 0;      // archives read and hashed this run
  std::size_t reused = 0;    // records taken from the cache (archive unchanged)
  std::size_t removed = 0;   // cached records whose archive is gone
  bool repodata_changed = false;  // repodata.json was (re)written
};

struct ChannelIndexResult {
  std::filesystem::path channel;            // the directory indexed
  std::vector<SubdirIndexSummary> subdirs;  // sorted by name; noarch always present
  std::vector<ChannelIndexProblem> problems;

  std::size_t packages() const;
  std::size_t read() const;
  std::size_t reused() const;
  std::size_t removed() const;
};

struct ChannelIndexError {
  enum class Kind {
    not_a_channel,  // the directory does not exist, is not a directory, or is a subdir (linux-64/)
    write_failed,   // an output file could not be written
  };
  Kind kind = Kind::write_failed;
  std::string message;  // names the path and what to do
};

// Indexes every subdir of `channel_dir` whose name is a conda subdir
// (specs::known_subdirs), plus noarch, which is created when missing.
// Directories with package files whose names are not subdirs are reported as
// problems. Prints nothing.
std::expected<ChannelIndexResult, ChannelIndexError> index_channel(const std::filesystem::path& channel_dir,
                                                                   const ChannelIndexOptions& options = {});

}  // namespace gpuenv::repodata
