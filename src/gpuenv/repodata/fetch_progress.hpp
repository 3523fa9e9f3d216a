// The progress display of a repodata fetch: one line per finished subdir and
// a live status line, drawn only on a terminal so logs and pipes stay clean.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::repodata {

class FetchProgress {
 public:
  // Draws to `fd` only when `enabled` and `fd` is a terminal.
  explicit FetchProgress(bool enabled, int fd = STDERR_FILENO);
  ~FetchProgress();
  FetchProgress(const FetchProgress&) = delete;
  FetchProgress& operator=(const FetchProgress&) = delete;

  bool drawing() const { return drawing_; }
  // Registers a subdir being fetched ("conda-forge/linux-64"); returns its id.
  std::size_t add(std::string label);
  void received(std::size_t id, std::uint64_t bytes);
  // Prints "<label>  <outcome>" above the status line.
  void finished(std::size_t id, std::string_view outcome);

 private:
  struct Item {
    std::string label;
    std::uint64_t bytes = 0;
    bool done = false;
  };
  void draw_status(bool even_if_recent);
  void write_out(std::string_view text) const;

  bool drawing_ = false;
  int fd_;
  std::vector<Item> items_;
  std::chrono::steady_clock::time_point last_draw_;
};

// "1.5 MB", "320 kB", "12 B" (decimal units, as conda and mamba print them).
std::string format_bytes(std::uint64_t bytes);

// The status line: "Fetching repodata 3/8  12.4 MB  conda-forge/linux-64",
// cut to `width` columns so it never wraps (a wrapped line cannot be redrawn).
std::string format_status_line(std::size_t done, std::size_t total, std::uint64_t bytes,
                               std::string_view active_label, std::size_t width);

}  // namespace gpuenv::repodata
