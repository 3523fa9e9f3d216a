#include "terminal_reporter.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>

#include <cstdio>

#include "gpuenv/repodata/fetch_observer.hpp"

namespace gpuenv::cli {
namespace {

constexpr std::string_view kClearLine = "\r\033[K";
constexpr auto kFetchRedrawInterval = std::chrono::milliseconds(100);
// Changes from a warm cache take a fraction of a second: no line flashes for them.
constexpr auto kFirstTransactionDrawAfter = std::chrono::milliseconds(300);

std::size_t terminal_width(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

std::string fit(std::string line, std::size_t width) {
  // The last column stays free: writing into it wraps on some terminals.
  const std::size_t limit = width > 1 ? width - 1 : width;
  if (line.size() > limit) line.resize(limit);
  return line;
}

}  // namespace

std::string format_status_line(std::size_t done, std::size_t total, std::uint64_t bytes,
                               std::string_view active_label, std::size_t width) {
  std::string line = fmt::format("Fetching repodata {}/{}  {}", done, total, repodata::format_bytes(bytes));
  if (!active_label.empty()) line += fmt::format("  {}", active_label);
  return fit(std::move(line), width);
}

std::string transaction_progress_line(const environment::TransactionProgress& progress, std::size_t width) {
  std::string line;
  if (progress.downloads > 0) {
    line = fmt::format("Downloading {}/{}  {}", progress.downloads_done, progress.downloads,
                       repodata::format_bytes(progress.downloaded_bytes));
    if (progress.download_bytes_total) line += " / " + repodata::format_bytes(*progress.download_bytes_total);
    line += "   ";
  }
  if (progress.to_unlink > 0) line += fmt::format("Unlinking {}/{}   ", progress.unlinked, progress.to_unlink);
  line += fmt::format("Linking {}/{}", progress.linked, progress.to_link);
  return fit(std::move(line), width);
}

TerminalReporter::TerminalReporter(bool show_progress, int fd)
    : drawing_(show_progress && ::isatty(fd) == 1), fd_(fd) {}

TerminalReporter::~TerminalReporter() { clear_line(); }

void TerminalReporter::warning(std::string_view message) {
  clear_line();
  std::fflush(stdout);
  write_out(fmt::format("gpuenv: warning: {}\n", message));
}

void TerminalReporter::notice(std::string_view message) {
  clear_line();
  std::fflush(stdout);
  write_out(fmt::format("gpuenv: {}\n", message));
}

std::size_t TerminalReporter::subdir_started(std::string label) {
  subdirs_.push_back(Subdir{std::move(label)});
  draw_fetch_status(false);
  return subdirs_.size() - 1;
}

void TerminalReporter::subdir_received(std::size_t id, std::uint64_t bytes) {
  if (id >= subdirs_.size()) return;
  subdirs_[id].bytes += bytes;
  draw_fetch_status(false);
}

void TerminalReporter::subdir_finished(std::size_t id, std::string_view outcome) {
  if (id >= subdirs_.size()) return;
  subdirs_[id].done = true;
  if (!drawing_) return;
  clear_line();
  write_out(fmt::format("{}  {}\n", subdirs_[id].label, outcome));
  draw_fetch_status(true);
}

void TerminalReporter::draw_fetch_status(bool even_if_recent) {
  if (!drawing_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!even_if_recent && now - last_fetch_draw_ < kFetchRedrawInterval) return;
  last_fetch_draw_ = now;
  std::size_t done = 0;
  std::uint64_t bytes = 0;
  std::string_view active;
  for (const auto& subdir : subdirs_) {
    bytes += subdir.bytes;
    if (subdir.done) ++done;
    else if (active.empty()) active = subdir.label;
  }
  if (done == subdirs_.size()) {
    clear_line();
    return;
  }
  replace_line(format_status_line(done, subdirs_.size(), bytes, active, terminal_width(fd_)));
}

void TerminalReporter::transaction_progress(const environment::TransactionProgress& progress) {
  if (!drawing_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!transaction_started_) transaction_started_ = now;
  if (now - *transaction_started_ < kFirstTransactionDrawAfter) return;
  replace_line(transaction_progress_line(progress, terminal_width(fd_)));
}

void TerminalReporter::transaction_finished() {
  clear_line();
  transaction_started_.reset();
}

void TerminalReporter::replace_line(std::string line) {
  if (line == line_) return;
  write_out(fmt::format("{}{}", kClearLine, line));
  line_ = std::move(line);
}

void TerminalReporter::clear_line() {
  if (line_.empty()) return;
  write_out(kClearLine);
  line_.clear();
}

void TerminalReporter::write_out(std::string_view text) const {
  // Best effort: a failed write to the terminal is not worth failing a command for.
  while (!text.empty()) {
    const ssize_t written = ::write(fd_, text.data(), text.size());
    if (written <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace gpuenv::cli
