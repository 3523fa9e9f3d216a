// How solving commands report: a table of what would be linked and
// unlinked, conda's --json shapes, and unsatisfiable requests.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuenv/solver/channel_loader.hpp"
#include "gpuenv/solver/solver.hpp"
#include "gpuenv/system/virtual_package_explanation.hpp"

namespace gpuenv::cli {

// {"success": false, "error": ..., "explanation": [...], "exception_name": ...}
void print_json_failure(const std::string& error, const std::vector<std::string>& explanation,
                        const std::string& exception_name);

// The plan as a table, on stdout. The machine's lines are left out when
// `machine.platform` is empty (plans that were not solved). The download
// total counts only the packages `pkgs_dirs` do not hold already (extracted
// or as a package file), as the install will fetch them.
void print_plan(const solver::Solution& solution, const solver::ChannelLoadResult& loaded,
                const std::filesystem::path& prefix, const system::MachineDescription& machine,
                const std::vector<std::filesystem::path>& pkgs_dirs = {});

// The explanation of an unsatisfiable request, on stderr.
void print_unsolvable(const solver::Unsolvable& unsolvable);

// "12.3 MB"
std::string human_size(std::uint64_t bytes);

}  // namespace gpuenv::cli
