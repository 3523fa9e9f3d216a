// Parsing a channel subdir's repodata.json with simdjson's On-Demand API:
// the records go straight to a RecordSink as views into the document (no
// per-record objects), `packages` and `packages.conda` merged so that a
// package published in both formats is one record (the .conda).
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

#include "gpuenv/repodata/repodata_records.hpp"

namespace gpuenv::repodata {

struct ParseOptions {
  // How the file is named in messages: the URL it came from, when known;
  // the file's path otherwise.
  std::string source_label;
  // conda's use_only_tar_bz2: ignore `packages.conda`.
  bool only_tar_bz2 = false;
  // How many skipped records ParseSummary::first_skipped keeps.
  std::size_t skipped_examples = 5;
};

// Maps and parses the file. Fails (never throws) when it cannot be read or
// is not a JSON object; a message names the source and the byte offset.
std::expected<ParseSummary, RepodataError> parse_repodata_file(const std::filesystem::path& path,
                                                               RecordSink& sink,
                                                               const ParseOptions& options = {});

// The same for a document already in memory (copied once to add the
// padding simdjson needs).
std::expected<ParseSummary, RepodataError> parse_repodata_text(std::string_view json,
                                                               RecordSink& sink,
                                                               const ParseOptions& options = {});

}  // namespace gpuenv::repodata
