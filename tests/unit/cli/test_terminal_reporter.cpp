// The terminal reporter draws progress on a terminal and stays silent otherwise.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

#include "gpuenv/repodata/fetch_observer.hpp"
#include "terminal_reporter.hpp"

namespace gpuenv::testing {
namespace {

using cli::TerminalReporter;

std::string drain(int fd) {
  std::string out;
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  char buffer[4096];
  ssize_t count = 0;
  while ((count = ::read(fd, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(count));
  return out;
}

void show_two_subdirs(TerminalReporter& progress) {
  const auto linux64 = progress.subdir_started("conda-forge/linux-64");
  const auto noarch = progress.subdir_started("conda-forge/noarch");
  progress.subdir_received(linux64, 1'500'000);
  progress.subdir_finished(linux64, "1.5 MB downloaded");
  progress.subdir_finished(noarch, "up to date");
}

TEST(TerminalReporter, DrawsOnATerminal) {
  int controller = -1;
  int terminal = -1;
  ASSERT_EQ(::openpty(&controller, &terminal, nullptr, nullptr, nullptr), 0);
  {
    TerminalReporter progress(true, terminal);
    EXPECT_TRUE(progress.drawing());
    show_two_subdirs(progress);
  }
  const std::string drawn = drain(controller);
  EXPECT_NE(drawn.find("conda-forge/linux-64  1.5 MB downloaded"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("conda-forge/noarch  up to date"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("Fetching repodata"), std::string::npos) << drawn;
  ::close(controller);
  ::close(terminal);
}

TEST(TerminalReporter, SilentWhenNotATerminalOrDisabled) {
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  {
    TerminalReporter progress(true, pipe_ends[1]);
    EXPECT_FALSE(progress.drawing());
    show_two_subdirs(progress);
  }
  EXPECT_EQ(drain(pipe_ends[0]), "");
  ::close(pipe_ends[0]);
  ::close(pipe_ends[1]);

  int controller = -1;
  int terminal = -1;
  ASSERT_EQ(::openpty(&controller, &terminal, nullptr, nullptr, nullptr), 0);
  {
    TerminalReporter progress(false, terminal);
    show_two_subdirs(progress);
  }
  EXPECT_EQ(drain(controller), "");
  ::close(controller);
  ::close(terminal);
}

TEST(TerminalReporter, StatusLineFitsTheTerminal) {
  EXPECT_EQ(cli::format_status_line(3, 8, 12'400'000, "conda-forge/linux-64", 80),
            "Fetching repodata 3/8  12.4 MB  conda-forge/linux-64");
  EXPECT_EQ(cli::format_status_line(3, 8, 12'400'000, "conda-forge/linux-64", 21).size(), 20u);
  EXPECT_EQ(repodata::format_bytes(999), "999 B");
  EXPECT_EQ(repodata::format_bytes(320'000), "320 kB");
  EXPECT_EQ(repodata::format_bytes(1'500'000), "1.5 MB");
  EXPECT_EQ(repodata::format_bytes(2'250'000'000), "2.25 GB");
}

}  // namespace
}  // namespace gpuenv::testing
