// What `gpuenv ci run` prints: one row per (recipe, variant) job -- image,
// runner, time, package file(s), tests, CUDA check -- or the same as one
// JSON document (docs/json-output.md).
#pragma once

#include <string>

#include "gpuenv/ci/ci_run.hpp"

namespace gpuenv::ci {

// A table with a header line; failed jobs follow it with their error.
std::string run_summary_table(const CiRunResult& result);

// {"schema_version": 1, "success": ..., "jobs": [...]}, indented.
std::string run_summary_json(const CiRunResult& result);

}  // namespace gpuenv::ci
