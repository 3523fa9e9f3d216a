// Internal to the repodata module: CEP 48's `info.repodata_revisions` and
// its top-level `vN` keys.
#pragma once

#include <simdjson.h>

#include <string_view>
#include <vector>

#include "gpuenv/repodata/repodata_records.hpp"

namespace gpuenv::repodata {

// The revision keys whose records gpuenv reads (`v3`).
bool is_known_revision_key(std::string_view key) noexcept;

// `info.repodata_revisions` into `out`. A revision whose value is not an
// object, a field of the wrong type, or an unknown key is left out (the
// CEP: additional keys SHOULD be ignored); a message longer than the CEP's
// 8192 bytes is cut there. Value errors are returned for the caller to
// ignore; other errors mean the document is broken.
simdjson::error_code read_repodata_revisions(simdjson::ondemand::value& value, std::vector<RepodataRevision>& out);

}  // namespace gpuenv::repodata
