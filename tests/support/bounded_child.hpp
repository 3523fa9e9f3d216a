// Running a piece of a test in a forked child under resource limits, so a
// test of a size limit cannot fill the disk (RLIMIT_FSIZE) or the memory
// (RLIMIT_AS) of the machine when the code under test fails to stop.
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

namespace gpuenv::testing {

struct ChildLimits {
  std::optional<rlim_t> file_size = std::nullopt;      // bytes one file may grow to
  std::optional<rlim_t> address_space = std::nullopt;  // bytes of virtual memory
};

struct BoundedOutcome {
  int exit_code = -1;  // 0: the body returned; 1: it threw; -1: killed
  int signal = 0;
  std::string message;  // what the body returned, or the exception's what()
};

// This process's virtual memory size (VmSize), to set RLIMIT_AS relative to.
inline rlim_t current_address_space() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmSize:") {
      rlim_t kilobytes = 0;
      status >> kilobytes;
      return kilobytes * 1024;
    }
  }
  return 0;
}

// Runs `body` in a child under `limits`. Writing past the file size limit
// fails with EFBIG instead of killing the child. Call with no other
// threads running in this process.
inline BoundedOutcome run_bounded(const ChildLimits& limits,
                                  const std::function<std::string()>& body) {
  int channel[2];
  if (::pipe(channel) != 0) return {};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(channel[0]);
    ::signal(SIGXFSZ, SIG_IGN);
    if (limits.file_size) {
      const rlimit limit{*limits.file_size, *limits.file_size};
      ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    if (limits.address_space) {
      const rlimit limit{*limits.address_space, *limits.address_space};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    int code = 0;
    std::string message;
    try {
      message = body();
    } catch (const std::exception& error) {
      message = error.what();
      code = 1;
    }
    [[maybe_unused]] const auto written = ::write(channel[1], message.data(), message.size());
    ::_exit(code);
  }
  ::close(channel[1]);
  BoundedOutcome outcome;
  char buffer[4096];
  ssize_t count = 0;
  while ((count = ::read(channel[0], buffer, sizeof buffer)) > 0) {
    outcome.message.append(buffer, static_cast<std::size_t>(count));
  }
  ::close(channel[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace gpuenv::testing
