// apply(plan, reporter): carries out what plan() decided -- fetch, verify
// and extract the packages to link (in parallel, through the package
// cache), unlink and link them into the prefix as one transaction
// (prefix::apply_transaction: all of it or none of it), and record the
// request in conda-meta/history. Progress goes to the Reporter as events.
#pragma once

#include <cstdint>
#include <expected>
#include <string>

#include "gpuenv/environment/error.hpp"
#include "gpuenv/environment/plan.hpp"
#include "gpuenv/environment/reporter.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/prefix/transaction.hpp"

namespace gpuenv::environment {

struct ApplyOptions {
  // conda-meta/history's "# cmd:" line.
  std::string command_line;
  // CEP 22: change an environment that has conda-meta/frozen.
  bool override_frozen = false;
  // Run the packages' pre-link, post-link and pre-unlink scripts (CEP 34).
  bool run_link_scripts = true;
};

struct ApplyResult {
  prefix::TransactionResult transaction;
  std::uint64_t downloaded_bytes = 0;  // what this change brought into the package cache
  double seconds = 0;
};

// Applies `plan`, then releases its change lock (a plan is applied once),
// so the next plan of the same environment -- in this process too -- goes
// ahead. On failure the prefix is as it was, and the error says what failed.
std::expected<ApplyResult, Error> apply(Plan& plan, const Settings& settings, const ApplyOptions& options,
                                        Reporter& reporter);

}  // namespace gpuenv::environment
