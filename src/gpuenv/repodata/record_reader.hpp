// Internal to the repodata module: one package record object of a
// repodata.json read into a RawRecord, fields in any order.
#pragma once

#include <simdjson.h>

#include <string_view>
#include <vector>

#include "gpuenv/repodata/repodata_records.hpp"

namespace gpuenv::repodata {

class RecordReader {
 public:
  // Reads `object` (the value of `filename` in `packages`). Returns a
  // simdjson error only when the document itself is broken; a record that
  // is well-formed JSON but unusable (no name, a number that is text, a
  // file name that is not a bare name-version-build.conda/.tar.bz2 of the
  // record, a string holding a NUL) returns SUCCESS with `problem` saying why, so the caller can
  // skip it.
  // The record's spans point into this reader: valid until the next read.
  simdjson::error_code read(simdjson::ondemand::object& object, std::string_view filename,
                            RawRecord& record, std::string_view& problem);

 private:
  std::string_view record_problem(std::string_view filename, const RawRecord& record) const noexcept;

  std::vector<std::string_view> depends_;
  std::vector<std::string_view> constrains_;
  std::vector<std::string_view> track_features_;
  std::vector<std::string_view> features_;
  std::vector<std::string_view> flags_;
};

// A document's `info` object: `subdir`, `base_url` and CEP 48's
// `repodata_revisions` into `header` (other keys ignored). Value errors concern `info` only; the caller decides.
simdjson::error_code read_repodata_info(simdjson::ondemand::value& value, RepodataHeader& header);

}  // namespace gpuenv::repodata
