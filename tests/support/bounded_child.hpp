// Running a piece of a test in a forked child under an address-space and
// CPU-time limit, so that a test of a memory bomb can fail (the bomb goes
// off) without taking the machine down: the child dies of the limit and the
// test reads that as a failure.
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <functional>
#include <string>

namespace gpuenv::testing {

struct BoundedOutcome {
  bool finished = false;  // the body returned (it was not killed, did not throw)
  std::string result;     // what the body returned
  std::string how_it_ended;  // for failure messages: "exit 3", "signal 9 (limit reached?)"
};

// Runs `body` in a child limited to `address_space_bytes` of virtual memory
// and `cpu_seconds` of CPU time; what it returns comes back through a pipe.
inline BoundedOutcome run_bounded(const std::function<std::string()>& body, std::size_t address_space_bytes,
                                  unsigned cpu_seconds = 20) {
  int fds[2];
  if (::pipe(fds) != 0) return {false, {}, "pipe failed"};
  const pid_t child = ::fork();
  if (child < 0) return {false, {}, "fork failed"};
  if (child == 0) {
    ::close(fds[0]);
    const rlimit memory{address_space_bytes, address_space_bytes};
    const rlimit cpu{cpu_seconds, cpu_seconds};
    ::setrlimit(RLIMIT_AS, &memory);
    ::setrlimit(RLIMIT_CPU, &cpu);
    ::alarm(cpu_seconds * 3);  // CPU time does not count a child blocked on something
    std::string result;
    try {
      result = body();
    } catch (...) {
      ::_exit(3);
    }
    std::size_t written = 0;
    while (written < result.size()) {
      const auto got = ::write(fds[1], result.data() + written, result.size() - written);
      if (got <= 0) ::_exit(4);
      written += static_cast<std::size_t>(got);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  BoundedOutcome outcome;
  char buffer[4096];
  for (;;) {
    const auto got = ::read(fds[0], buffer, sizeof buffer);
    if (got <= 0) break;
    outcome.result.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFEXITED(status)) {
    outcome.finished = WEXITSTATUS(status) == 0;
    outcome.how_it_ended = "exit " + std::to_string(WEXITSTATUS(status)) +
                           (WEXITSTATUS(status) == 3 ? " (an exception: out of memory under the limit?)" : "");
  } else if (WIFSIGNALED(status)) {
    outcome.how_it_ended = "signal " + std::to_string(WTERMSIG(status)) + " (a limit reached, or a crash)";
  }
  return outcome;
}

}  // namespace gpuenv::testing
