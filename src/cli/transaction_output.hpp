// What a command that changes a prefix shows after it did: one summary
// line, the clobbers and the warnings (the progress line while it works is
// the TerminalReporter's).
#pragma once

#include <cstdint>
#include <string>

#include "gpuenv/environment/apply.hpp"

namespace gpuenv::cli {

// "Linked 12 packages, unlinked 3 (1.2 MB downloaded) in 2.3 s".
std::string summary_line(const environment::ApplyResult& result);

// What a finished transaction has to tell besides the summary: clobbered paths and warnings on stderr,
// the packages' own messages on stdout.
void print_transaction_notes(const prefix::TransactionResult& result);

}  // namespace gpuenv::cli
