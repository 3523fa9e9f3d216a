// conda-meta/history (CEP 32): one block per transaction, in conda's format,
// so `conda list --revisions` reads a gpuenv prefix.
//
//   ==> 2024-05-01 10:00:00 <==
//   # cmd: gpuenv install -p /env numpy
//   # gpuenv version: 0.1.0
//   -conda-forge/linux-64::numpy-1.26.3-py312h1_0
//   +conda-forge/linux-64::numpy-1.26.4-py312h8753938_0
//   # update specs: ['numpy']
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::prefix {

struct HistoryEntry {
  std::chrono::system_clock::time_point time;
  std::string command_line;  // "# cmd:" line; omitted when empty
  std::string tool_version;  // "# gpuenv version:" line
  std::vector<specs::PackageRecord> unlinked;
  std::vector<specs::PackageRecord> linked;
  std::vector<std::string> update_specs;  // what the user asked to install or update
  std::vector<std::string> remove_specs;  // what the user asked to remove
};

// conda's package string: "<channel canonical name>/<subdir>::<name>-<version>-<build>",
// or just the dist string when the record has no channel.
std::string history_package_string(const specs::PackageRecord& package);

// The block appended for one transaction: removals first, then additions,
// each sorted, as conda writes them; the time in local time.
std::string history_block(const HistoryEntry& entry);

// Python's repr of a list of strings, which conda uses for the specs lines:
// ['numpy', "it's"].
std::string python_list_repr(const std::vector<std::string>& items);

}  // namespace gpuenv::prefix
