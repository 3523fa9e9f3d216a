#include "transaction_output.hpp"

#include <fmt/format.h>
#include <cstdio>

#include "solve_output.hpp"

namespace gpuenv::cli {
namespace {

std::string plural(std::size_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

}  // namespace

std::string summary_line(const environment::ApplyResult& result) {
  const auto linked = result.transaction.linked.size();
  const auto unlinked = result.transaction.unlinked.size();
  std::string line;
  if (linked > 0) line = "Linked " + plural(linked, "package");
  if (unlinked > 0) {
    line += line.empty() ? "Unlinked " + plural(unlinked, "package")
                         : ", unlinked " + std::to_string(unlinked);
  }
  if (result.downloaded_bytes > 0) {
    line += fmt::format(" ({} downloaded)", human_size(result.downloaded_bytes));
  }
  return line + (result.seconds < 1 ? fmt::format(" in {:.2f} s", result.seconds)
                                      : fmt::format(" in {:.1f} s", result.seconds));
}

void print_transaction_notes(const prefix::TransactionResult& result) {
  std::fflush(stdout);
  for (const auto& clobber : result.clobbers) {
    fmt::print(stderr, "gpuenv: warning: {} clobbered {}: {} is the file in the environment now\n",
               clobber.winner, clobber.previous_owner.empty() ? "a file no package owned" : clobber.previous_owner,
               clobber.path);
  }
  for (const auto& warning : result.warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
  if (!result.script_messages.empty()) {
    fmt::print("\nMessages from the packages:\n{}", result.script_messages);
    if (!result.script_messages.ends_with('\n')) fmt::print("\n");
  }
}

}  // namespace gpuenv::cli
