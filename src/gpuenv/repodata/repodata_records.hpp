// What the repodata parser hands to its consumer: one record at a time as
// views into the parsed document, so the hot path (hundreds of thousands of
// records) copies no strings. The consumer (the solver's pool loader, a
// search, a test) interns or copies what it keeps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::repodata {

enum class ArchiveKind : std::uint8_t { tar_bz2, conda };

// "pkg-1.0-0.conda" -> conda; anything else -> tar_bz2 (the legacy format).
ArchiveKind archive_kind_of(std::string_view filename) noexcept;

// One entry of CEP 48's info.repodata_revisions (`"v3": {...}`): what a
// channel says about the records under a newer top-level key.
struct RepodataRevision {
  std::string key;      // "v3"
  std::string message;  // the channel operator's words, at most 8192 bytes; empty: none
  std::optional<std::uint64_t> n_packages;
  std::optional<std::uint64_t> oldest_ms;  // indexed_timestamp of the oldest record
  std::optional<std::uint64_t> newest_ms;
  friend bool operator==(const RepodataRevision&, const RepodataRevision&) = default;
};

// The top of a repodata.json: known before the first record is handed out,
// whatever order the keys have in the file.
struct RepodataHeader {
  std::string subdir;    // info.subdir; empty when the file does not say
  std::string base_url;  // info.base_url as written (CEP 15); empty when absent
  int repodata_version = 1;
  // Filenames the channel withdrew (`removed`). They are not in `packages`;
  // kept for reporting only.
  std::vector<std::string> removed;
  // The file is conda's old test-index shape: filenames at the top level,
  // without `info` or `packages` (conda's tests/data/index*.json).
  bool flat_index = false;
  // CEP 48; gpuenv reads the `v3` records and shows each message once.
  std::vector<RepodataRevision> revisions;
};

// One package record. Every view points into the document being parsed and
// is valid only during RecordSink::on_record.
struct RawRecord {
  std::string_view filename;  // the key in `packages` / `packages.conda`
  ArchiveKind archive = ArchiveKind::tar_bz2;
  std::string_view name;
  std::string_view version;
  std::string_view build;
  std::uint64_t build_number = 0;
  std::string_view subdir;  // empty: the header's subdir applies
  std::string_view md5;     // hex; empty when unknown
  std::string_view sha256;  // hex; empty when unknown
  std::optional<std::uint64_t> size;
  std::uint64_t timestamp_ms = 0;  // normalized to milliseconds (CEP 34); 0 unknown
  std::string_view license;
  std::string_view license_family;
  specs::NoarchType noarch = specs::NoarchType::none;
  std::string_view python_site_packages_path;  // CEP 20
  std::span<const std::string_view> depends;
  std::span<const std::string_view> constrains;
  std::span<const std::string_view> track_features;  // split, without empties
  std::span<const std::string_view> features;        // split, without empties
  std::span<const std::string_view> flags;           // CEP 45
};

// Receives a document's header, then its records. A record whose .conda
// twin exists in the same file is never handed out (conda and mamba prefer
// the .conda of a package that is published in both formats).
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void on_header(const RepodataHeader& header) = 0;
  virtual void on_record(const RawRecord& record) = 0;
};

// A record the parser skipped because a required field was missing or had
// the wrong type (the rest of the file still loads, as in conda and mamba),
// or because its key is not a file name gpuenv may write to disk: one path
// component that is the record's own name-version-build.conda/.tar.bz2.
struct SkippedRecord {
  std::string filename;
  std::string reason;
};

struct ParseSummary {
  RepodataHeader header;
  std::size_t records = 0;             // handed to the sink
  std::size_t conda_records = 0;       // of which .conda
  std::size_t superseded_tar_bz2 = 0;  // .tar.bz2 not handed out: its .conda exists
  std::size_t skipped = 0;
  std::vector<SkippedRecord> first_skipped;  // the first few, for messages
  std::size_t bytes = 0;
};

// A repodata file that cannot be read at all: unreadable, not JSON, not an
// object. The message names the file (or URL), the byte offset and line
// when known, and what to do.
struct RepodataError {
  std::string source;
  std::optional<std::size_t> byte_offset;
  std::string message;
};

}  // namespace gpuenv::repodata
