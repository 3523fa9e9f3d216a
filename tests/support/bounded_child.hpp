// Running a piece of a test in a forked child under resource limits, so a
// test of a size or memory bomb can fail (the bomb goes off) without filling
// the disk (RLIMIT_FSIZE) or the memory (RLIMIT_AS) of the machine, or
// spinning for minutes (RLIMIT_CPU, and an alarm for a blocked child): the
// child dies of the limit and the test reads that as a failure.
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
  unsigned cpu_seconds = 60;
};

struct BoundedOutcome {
  int exit_code = -1;   // 0: the body returned; 1: it threw; -1: killed
  int signal = 0;
  std::string message;  // what the body returned, or the exception's what()

  bool finished() const { return exit_code == 0 && signal == 0; }
  // For failure messages.
  std::string how_it_ended() const {
    if (signal != 0) return "signal " + std::to_string(signal) + " (a limit reached, or a crash)";
    if (exit_code == 1) return "an exception (out of memory under the limit?): " + message;
    return "exit " + std::to_string(exit_code);
  }
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

// Runs `body` in a child under `limits`; what it returns (or the message of
// what it throws) comes back through a pipe. Writing past the file size
// limit fails with EFBIG instead of killing the child. Call with no other
// threads running in this process.
inline BoundedOutcome run_bounded(const ChildLimits& limits,
                                  const std::function<std::string()>& body) {
  int channel[2];
  if (::pipe(channel) != 0) return {};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return {};
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
    const rlimit cpu{limits.cpu_seconds, limits.cpu_seconds};
    ::setrlimit(RLIMIT_CPU, &cpu);
    ::alarm(limits.cpu_seconds * 3);  // CPU time does not count a child blocked on something
    int code = 0;
    std::string message;
    try {
      message = body();
    } catch (const std::exception& error) {
      message = error.what();
      code = 1;
    } catch (...) {
      code = 1;
    }
    std::size_t written = 0;
    while (written < message.size()) {
      const auto count = ::write(channel[1], message.data() + written, message.size() - written);
      if (count <= 0) ::_exit(4);
      written += static_cast<std::size_t>(count);
    }
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
