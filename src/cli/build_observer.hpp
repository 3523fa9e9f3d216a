// What `gpuenv build` and `gpuenv test` show while they work: the
// environment layer's events through the terminal reporter, the builder's
// steps and the scripts' output on stderr -- nothing with --json (the log
// file has it all).
#pragma once

#include <string>
#include <string_view>

#include "gpuenv/builder/build_variant.hpp"
#include "terminal_reporter.hpp"

namespace gpuenv::cli {

class CliBuildObserver : public build::BuildObserver {
 public:
  explicit CliBuildObserver(bool quiet) : quiet_(quiet), terminal_(!quiet) {}
  void step(std::string_view message) override;
  void script_output(std::string_view piece) override;
  void warning(std::string_view message) override { terminal_.warning(message); }
  void notice(std::string_view message) override { terminal_.notice(message); }
  std::size_t subdir_started(std::string label) override { return terminal_.subdir_started(std::move(label)); }
  void subdir_received(std::size_t id, std::uint64_t bytes) override { terminal_.subdir_received(id, bytes); }
  void subdir_finished(std::size_t id, std::string_view outcome) override { terminal_.subdir_finished(id, outcome); }
  void transaction_progress(const environment::TransactionProgress& progress) override {
    terminal_.transaction_progress(progress);
  }
  void transaction_finished() override { terminal_.transaction_finished(); }
  bool follows_downloads() const override { return terminal_.follows_downloads(); }

 private:
  bool quiet_;
  TerminalReporter terminal_;
};

}  // namespace gpuenv::cli
