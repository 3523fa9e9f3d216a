// search(settings, spec): the channel records a MatchSpec selects, as
// `conda search` finds them (newest first; pins do not apply: a search
// lists what the channels hold).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/environment/error.hpp"
#include "gpuenv/environment/reporter.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/solver/channel_loader.hpp"

namespace gpuenv::environment {

struct SearchResult {
  std::vector<specs::PackageRecord> records;  // newest first
  solver::ChannelLoadResult loaded;
};

// Fails when the spec does not parse, a channel cannot be loaded, or no
// record matches (ErrorKind::no_match, naming the channels searched).
std::expected<SearchResult, Error> search(const Settings& settings, std::string_view spec_text, Reporter& reporter);

// `conda search`'s listing order: names alphabetically, each name's records
// oldest first, so the newest ends up next to the prompt. `records` is
// search()'s (newest first).
std::vector<const specs::PackageRecord*> oldest_first(const std::vector<specs::PackageRecord>& records);

// `conda search --json`: {"<name>": [record, ...]} in oldest_first's order,
// each record as repodata.json holds it, indented.
std::string conda_search_json(const std::vector<specs::PackageRecord>& records);

}  // namespace gpuenv::environment
