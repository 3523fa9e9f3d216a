// How the gpuenv command shows the environment layer's events: warnings and
// notices on stderr ("gpuenv: warning: ..."), and on a terminal two live
// lines -- "Fetching repodata 3/8  12.4 MB  conda-forge/linux-64" while
// repodata downloads (with one line per finished subdir above it), and
// "Downloading 2/5  12.3 MB / 40.0 MB   Linking 3/12" while a transaction
// runs. Logs and pipes get no progress lines.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/environment/reporter.hpp"

namespace gpuenv::cli {

class TerminalReporter : public environment::Reporter {
 public:
  // Draws progress to `fd` only when `show_progress` and `fd` is a terminal;
  // warnings and notices always go to `fd`.
  explicit TerminalReporter(bool show_progress, int fd = STDERR_FILENO);
  ~TerminalReporter() override;
  TerminalReporter(const TerminalReporter&) = delete;
  TerminalReporter& operator=(const TerminalReporter&) = delete;

  bool drawing() const { return drawing_; }

  void warning(std::string_view message) override;
  void notice(std::string_view message) override;
  std::size_t subdir_started(std::string label) override;
  void subdir_received(std::size_t id, std::uint64_t bytes) override;
  void subdir_finished(std::size_t id, std::string_view outcome) override;
  void transaction_progress(const environment::TransactionProgress& progress) override;
  void transaction_finished() override;
  bool follows_downloads() const override { return drawing_; }  // it draws them, and only when drawing

 private:
  struct Subdir {
    std::string label;
    std::uint64_t bytes = 0;
    bool done = false;
  };
  void draw_fetch_status(bool even_if_recent);
  void replace_line(std::string line);
  void clear_line();
  void write_out(std::string_view text) const;

  bool drawing_ = false;
  int fd_;
  std::vector<Subdir> subdirs_;
  std::chrono::steady_clock::time_point last_fetch_draw_;
  std::optional<std::chrono::steady_clock::time_point> transaction_started_;
  std::string line_;  // the live line on screen now; empty: none
};

// The repodata status line, cut to `width` columns so it never wraps (a
// wrapped line cannot be redrawn).
std::string format_status_line(std::size_t done, std::size_t total, std::uint64_t bytes,
                               std::string_view active_label, std::size_t width);

// "Downloading 2/5  12.3 MB / 40.0 MB   Linking 3/12", cut to `width`.
std::string transaction_progress_line(const environment::TransactionProgress& progress, std::size_t width);

}  // namespace gpuenv::cli
