// `gpuenv inspect --json` (docs/json-output.md): each file's format, its
// distinct SASS and PTX targets and, when asked, every fatbin entry; the
// files that could not be read with why.
#pragma once

#include <string>
#include <vector>

#include "gpuenv/cuda_binary/reader.hpp"

namespace gpuenv::cuda_binary {

// `results` in the order read; `success` is the command's verdict (every
// file read, and whatever else it did with them worked).
std::string inspect_report_json(const std::vector<ReadResult>& results, bool with_entries, bool success);

}  // namespace gpuenv::cuda_binary
