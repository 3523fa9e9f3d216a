#include "transaction_output.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>

#include "solve_output.hpp"

namespace gpuenv::cli {
namespace {

constexpr std::string_view kClearLine = "\r\033[K";
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
// Changes from a warm cache take a fraction of a second: no line flashes for them.
constexpr auto kFirstDrawAfter = std::chrono::milliseconds(300);

std::size_t terminal_width(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

std::optional<std::uint64_t> size_on_disk(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(info.st_size);
}

bool path_exists(const std::filesystem::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

void write_out(int fd, std::string_view text) {
  // Best effort: a failed write to the terminal is not worth failing an install for.
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(written));
  }
}

std::string plural(std::size_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

}  // namespace

TransactionWatch watch_for(const std::filesystem::path& prefix, const std::vector<specs::PackageRecord>& link,
                           const prefix::PackageCache& cache) {
  TransactionWatch watch;
  for (const auto& record : link) {
    watch.records_to_link.push_back(prefix / "conda-meta" / prefix::prefix_record_filename(record));
    if (cache.find_extracted(record)) continue;
    const auto tarball = cache.tarball_path(record);
    if (path_exists(tarball)) continue;  // verified and extracted from there: no download
    watch.downloads.push_back({tarball, cache.partial_download_path(record), record.size});
  }
  return watch;
}

std::uint64_t downloaded_bytes(const TransactionWatch& watch) {
  std::uint64_t total = 0;
  for (const auto& download : watch.downloads) total += size_on_disk(download.tarball).value_or(0);
  return total;
}

std::string transaction_progress_line(std::size_t downloads_done, std::size_t downloads, std::uint64_t bytes,
                                      std::optional<std::uint64_t> total_bytes, std::size_t linked,
                                      std::size_t to_link, std::size_t width) {
  std::string line;
  if (downloads > 0) {
    line = fmt::format("Downloading {}/{}  {}", downloads_done, downloads, human_size(bytes));
    if (total_bytes) line += " / " + human_size(*total_bytes);
    line += "   ";
  }
  line += fmt::format("Linking {}/{}", linked, to_link);
  // The last column stays free: writing into it wraps on some terminals.
  const std::size_t limit = width > 1 ? width - 1 : width;
  if (line.size() > limit) line.resize(limit);
  return line;
}

TransactionProgress::TransactionProgress(TransactionWatch watch, bool enabled, int fd)
    : watch_(std::move(watch)), fd_(fd) {
  if (enabled && ::isatty(fd) == 1) thread_ = std::thread([this] { run(); });
}

TransactionProgress::~TransactionProgress() { stop(); }

void TransactionProgress::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  thread_.join();
  if (drew_) write_out(fd_, kClearLine);
}

void TransactionProgress::run() {
  std::unique_lock lock(mutex_);
  if (stop_requested_.wait_for(lock, kFirstDrawAfter, [this] { return stopping_; })) return;
  do {
    draw();
  } while (!stop_requested_.wait_for(lock, kRedrawInterval, [this] { return stopping_; }));
}

void TransactionProgress::draw() {
  // The cache writes a download to its partial_download_path and renames it
  // into place once verified: the partial file's size is the bytes so far.
  std::size_t downloads_done = 0;
  std::uint64_t bytes = 0;
  std::optional<std::uint64_t> total_bytes = 0;
  for (const auto& download : watch_.downloads) {
    if (const auto size = size_on_disk(download.tarball)) {
      ++downloads_done;
      bytes += *size;
    } else {
      bytes += size_on_disk(download.partial).value_or(0);
    }
    if (total_bytes && download.size) *total_bytes += *download.size;
    else total_bytes.reset();
  }
  std::size_t linked = 0;
  for (const auto& record : watch_.records_to_link) linked += path_exists(record) ? 1 : 0;
  auto line = transaction_progress_line(downloads_done, watch_.downloads.size(), bytes, total_bytes, linked,
                                        watch_.records_to_link.size(), terminal_width(fd_));
  if (line == last_line_) return;
  write_out(fd_, fmt::format("{}{}", kClearLine, line));
  last_line_ = std::move(line);
  drew_ = true;
}

std::string summary_line(const ChangeSummary& summary) {
  std::string line;
  if (summary.linked > 0) line = "Linked " + plural(summary.linked, "package");
  if (summary.unlinked > 0) {
    line += line.empty() ? "Unlinked " + plural(summary.unlinked, "package")
                         : ", unlinked " + std::to_string(summary.unlinked);
  }
  if (summary.downloaded_bytes > 0) {
    line += fmt::format(" ({} downloaded)", human_size(summary.downloaded_bytes));
  }
  return line + (summary.seconds < 1 ? fmt::format(" in {:.2f} s", summary.seconds)
                                      : fmt::format(" in {:.1f} s", summary.seconds));
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

void add_transaction_json(nlohmann::ordered_json& output, const prefix::TransactionResult& result,
                          const ChangeSummary& summary) {
  auto clobbers = nlohmann::ordered_json::array();
  for (const auto& clobber : result.clobbers) {
    clobbers.push_back({{"path", clobber.path},
                        {"winner", clobber.winner},
                        {"previous_owner", clobber.previous_owner.empty() ? nlohmann::ordered_json()
                                                                          : nlohmann::ordered_json(
                                                                                clobber.previous_owner)}});
  }
  output["clobbers"] = std::move(clobbers);
  output["warnings"] = result.warnings;
  output["messages"] = result.script_messages;
  output["downloaded_bytes"] = summary.downloaded_bytes;
  output["seconds"] = summary.seconds;
}

std::string recovery_note(prefix::RecoveryOutcome outcome, const std::filesystem::path& prefix) {
  switch (outcome) {
    case prefix::RecoveryOutcome::rolled_back:
      return "an interrupted gpuenv transaction in " + prefix.string() +
             " was rolled back: the environment is as it was before it";
    case prefix::RecoveryOutcome::completed:
      return "an interrupted gpuenv transaction in " + prefix.string() + " had committed and was completed";
    case prefix::RecoveryOutcome::nothing_to_recover:
      break;
  }
  return {};
}

}  // namespace gpuenv::cli
