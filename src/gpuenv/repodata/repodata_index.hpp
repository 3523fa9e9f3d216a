// A channel subdir's records grouped by package name, in a file made to be
// mapped: the idea of CEP 16's sharded repodata, kept locally. A solve needs
// the few thousand records its request can reach, not the whole channel, and
// the index hands out exactly those without reading anything else.
//
// Built once from repodata.json (streamed, so the JSON is never held in
// memory whole), then read with mmap: opening costs a header check, looking
// a name up a binary search, a record is decoded where it lies.
//
// Layout (native byte order, checked on open):
//   header        magic, format, section bounds, the file size
//   records       each record encoded once, in document order
//   offsets       per name, the file offsets of its records (document order)
//   names         sorted by name: text, first offset, count
//   meta          the JSON's header, counts, skipped records, the caller's stamp
// .tar.bz2 records whose .conda twin exists stay in `records` but are listed
// under no name (conda and mamba use the .conda).
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/repodata/file_growth.hpp"
#include "gpuenv/repodata/repodata_records.hpp"

namespace gpuenv::repodata {

struct IndexBuildOptions {
  // The JSON's name in messages (its URL when known).
  std::string source_label;
  bool only_tar_bz2 = false;
  // Stored in the file; RepodataIndex::open only accepts a file whose stamp
  // is the one expected, so a stamp describing the JSON's identity (path,
  // size, mtime) ties the index to it.
  std::string stamp;
  std::size_t chunk_bytes = std::size_t{4} << 20;
};

struct IndexBuildError {
  // The JSON is bad: `error` says where. Otherwise the index file could not
  // be written (`error.message` says why) and the JSON itself may be fine.
  bool json_invalid = false;
  RepodataError error;
};

// Parses `repodata_json` and writes its index to `index_file` (a temporary
// file renamed into place, so readers never see half a file).
std::expected<ParseSummary, IndexBuildError> build_repodata_index(const std::filesystem::path& repodata_json,
                                                                  const std::filesystem::path& index_file,
                                                                  const IndexBuildOptions& options);

// An index parsed from a repodata.json while the JSON was still downloading,
// waiting for the download's verdict: its name and stamp describe the JSON
// as committed into the cache (path, size, mtime), known only afterwards.
// commit() gives it both and renames it into place; dropping it removes the
// temporary file.
class PendingIndex {
 public:
  struct State;
  explicit PendingIndex(std::unique_ptr<State> state);
  PendingIndex(PendingIndex&&) noexcept;
  PendingIndex& operator=(PendingIndex&&) noexcept;
  ~PendingIndex();

  std::uint64_t json_bytes() const noexcept;  // the size of the JSON parsed
  // `index_file` must be in the directory given to parse_growing_repodata_index.
  std::expected<ParseSummary, std::string> commit(const std::filesystem::path& index_file, const std::string& stamp);

 private:
  std::unique_ptr<State> state_;
};

// Parses a repodata.json that a download is still writing (`fd`, read from
// offset 0, owned from now on; `growth` says how far it got) into a
// temporary index file in `index_dir`. Fails when the JSON does not have the
// shape the streaming parser takes, when the download is abandoned, or when
// the index cannot be written: the caller then builds the index the ordinary
// way (build_repodata_index), which also words any error in the JSON.
std::expected<PendingIndex, std::string> parse_growing_repodata_index(int fd, std::shared_ptr<FileGrowth> growth,
                                                                     const std::filesystem::path& index_dir,
                                                                     const IndexBuildOptions& options);

class RepodataIndex {
 public:
  // Fails (with the reason) when the file is missing, was written for
  // another stamp or by another format, or is damaged.
  static std::expected<RepodataIndex, std::string> open(const std::filesystem::path& index_file,
                                                        std::string_view expected_stamp);

  RepodataIndex(RepodataIndex&&) noexcept;
  RepodataIndex& operator=(RepodataIndex&&) noexcept;
  ~RepodataIndex();

  const RepodataHeader& header() const noexcept { return header_; }
  // The records a full parse hands out (twins superseded by their .conda
  // excluded), and what it skipped.
  std::size_t record_count() const noexcept { return record_count_; }
  std::size_t skipped_records() const noexcept { return skipped_; }
  const std::vector<SkippedRecord>& first_skipped() const noexcept { return first_skipped_; }

  std::size_t name_count() const noexcept;
  std::string_view name(std::size_t index) const noexcept;
  // The file offsets of the records of one name, in document order; empty
  // when the subdir has no such package.
  std::span<const std::uint64_t> records_named(std::string_view name) const noexcept;
  std::span<const std::uint64_t> records_of(std::size_t name_index) const noexcept;

  // Turns the encoded record at a file offset back into the RawRecord the
  // JSON parser handed out. Views point into the mapping or into the
  // decoder (its spans and hex checksums): valid until its next decode.
  class Decoder {
   public:
    // False when the bytes there are not a record (a damaged file).
    bool decode(const RepodataIndex& index, std::uint64_t offset, RawRecord& record);

   private:
    std::vector<std::string_view> depends_, constrains_, track_features_, features_, flags_;
    std::string filename_;
    char md5_hex_[32];
    char sha256_hex_[64];
  };

 private:
  RepodataIndex() = default;
  const void* entries() const noexcept;

  // Where the sections lie in the mapping (checked on open).
  struct Sections {
    std::uint64_t records_begin = 0, records_end = 0;
    std::uint64_t offsets_begin = 0, offsets_count = 0;
    std::uint64_t names_begin = 0, name_count = 0;
    std::uint64_t name_text_begin = 0, name_text_end = 0;
  };

  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  Sections trailer_;
  RepodataHeader header_;
  std::size_t record_count_ = 0;
  std::size_t skipped_ = 0;
  std::vector<SkippedRecord> first_skipped_;
};

}  // namespace gpuenv::repodata
