// Parsing a conda-forge-sized repodata.json in bounded memory. The file is
// read a few MB at a time; each piece of `packages` / `packages.conda` is cut
// after a record and parsed on its own with simdjson On-Demand (the cut is
// only a guess from the bytes around it; the parse proves it, see the .cpp).
// Memory stays at a few chunks whatever the file size, where parsing the
// whole document at once holds the file plus simdjson's index of it (about
// 1.6x the file) at the same time.
//
// Unlike parse_repodata_file, records come out in document order as they are
// read, .tar.bz2 records whose .conda twin exists included (the twin may come
// later in the file): the consumer drops them.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>

#include "gpuenv/repodata/file_growth.hpp"
#include "gpuenv/repodata/repodata_records.hpp"

namespace gpuenv::repodata {

class RecordStreamSink {
 public:
  virtual ~RecordStreamSink() = default;
  // Views valid during the call only, as for RecordSink::on_record.
  virtual void on_record(const RawRecord& record) = 0;
};

struct StreamOptions {
  std::string source_label;  // for skipped-record bookkeeping only
  // Bytes of JSON parsed at once: the memory the parse needs is a small
  // multiple of this.
  std::size_t chunk_bytes = std::size_t{4} << 20;
  std::size_t skipped_examples = 5;
};

// Why a file could not be streamed: not a repodata shape the streaming
// parser knows (conda's flat test index, a record bigger than its limit),
// invalid JSON, or unreadable. The caller then parses the whole document
// with parse_repodata_file, which accepts every shape and words the error;
// the records already handed out must be discarded.
struct NotStreamable {
  std::string reason;
};

// ParseSummary::header is complete on return (`info` may follow the
// records); superseded_tar_bz2 stays 0 (the consumer decides that).
std::expected<ParseSummary, NotStreamable> stream_repodata_file(const std::filesystem::path& path,
                                                               RecordStreamSink& sink,
                                                               const StreamOptions& options = {});

// The same over a file that is still being written (a download, read through
// `fd` from offset 0): parses as far as `growth` says the file exists, waits
// for the rest, and fails (NotStreamable) if the writer abandons the file.
// Takes ownership of `fd`.
std::expected<ParseSummary, NotStreamable> stream_growing_repodata_file(int fd, std::shared_ptr<FileGrowth> growth,
                                                                       RecordStreamSink& sink,
                                                                       const StreamOptions& options = {});

}  // namespace gpuenv::repodata
