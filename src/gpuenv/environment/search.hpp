// search(settings, spec): the channel records a MatchSpec selects, as
// `conda search` finds them (newest first; pins do not apply: a search
// lists what the channels hold).
#pragma once

#include <expected>
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

}  // namespace gpuenv::environment
