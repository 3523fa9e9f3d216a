// The names users know channels by, for what the solving commands print
// (`create`'s plan, `search`'s table, their --json): the loaded channels'
// own names rather than their URLs.
#pragma once

#include <string>
#include <vector>

#include "gpuenv/solver/channel_loader.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::environment {

// The name of the loaded channel a record came from; for a record of no
// loaded channel (a conda-meta record), its channel URL without the subdir.
std::string channel_name_of(const specs::PackageRecord& record, const solver::ChannelLoadResult& loaded);

// The loaded channels' names, each once, in the order they were loaded.
std::vector<std::string> loaded_channel_names(const solver::ChannelLoadResult& loaded);

}  // namespace gpuenv::environment
