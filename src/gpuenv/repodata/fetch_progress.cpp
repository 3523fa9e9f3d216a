#include "gpuenv/repodata/fetch_progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>


namespace gpuenv::repodata {
namespace {

constexpr std::string_view kClearLine = "\r\033[K";
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

std::size_t terminal_width(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1000) return fmt::format("{} B", bytes);
  const double value = static_cast<double>(bytes);
  if (bytes < 1000 * 1000) return fmt::format("{:.0f} kB", value / 1e3);
  if (bytes < 1000ull * 1000 * 1000) return fmt::format("{:.1f} MB", value / 1e6);
  return fmt::format("{:.2f} GB", value / 1e9);
}

std::string format_status_line(std::size_t done, std::size_t total, std::uint64_t bytes,
                               std::string_view active_label, std::size_t width) {
  std::string line = fmt::format("Fetching repodata {}/{}  {}", done, total, format_bytes(bytes));
  if (!active_label.empty()) line += fmt::format("  {}", active_label);
  // The last column stays free: writing into it wraps on some terminals.
  const std::size_t limit = width > 1 ? width - 1 : width;
  if (line.size() > limit) line.resize(limit);
  return line;
}

FetchProgress::FetchProgress(bool enabled, int fd)
    : drawing_(enabled && ::isatty(fd) == 1), fd_(fd) {}

FetchProgress::~FetchProgress() {
  if (drawing_ && !items_.empty()) write_out(kClearLine);
}

std::size_t FetchProgress::add(std::string label) {
  items_.push_back(Item{std::move(label)});
  draw_status(false);
  return items_.size() - 1;
}

void FetchProgress::received(std::size_t id, std::uint64_t bytes) {
  if (id >= items_.size()) return;
  items_[id].bytes += bytes;
  draw_status(false);
}

void FetchProgress::finished(std::size_t id, std::string_view outcome) {
  if (id >= items_.size()) return;
  items_[id].done = true;
  if (!drawing_) return;
  write_out(fmt::format("{}{}  {}\n", kClearLine, items_[id].label, outcome));
  draw_status(true);
}

void FetchProgress::draw_status(bool even_if_recent) {
  if (!drawing_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!even_if_recent && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  std::size_t done = 0;
  std::uint64_t bytes = 0;
  std::string_view active;
  for (const auto& item : items_) {
    bytes += item.bytes;
    if (item.done) ++done;
    else if (active.empty()) active = item.label;
  }
  if (done == items_.size()) {
    write_out(kClearLine);
    return;
  }
  write_out(fmt::format("{}{}", kClearLine,
                        format_status_line(done, items_.size(), bytes, active, terminal_width(fd_))));
}

void FetchProgress::write_out(std::string_view text) const {
  // Progress is best effort: a failed write to the terminal is not worth
  // failing a fetch for.
  while (!text.empty()) {
    const ssize_t written = ::write(fd_, text.data(), text.size());
    if (written <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace gpuenv::repodata
