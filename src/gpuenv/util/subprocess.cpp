#include "gpuenv/util/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace gpuenv::util {
namespace {

using Clock = std::chrono::steady_clock;

int milliseconds_left(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

void record_wait_status(int status, ForkedChildResult& result) {
  if (WIFEXITED(status)) {
    result.ending = ForkedChildResult::Ending::exited;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.ending = ForkedChildResult::Ending::signaled;
    result.signal = WTERMSIG(status);
  }
}

// Waits for the child to be reapable until `deadline`. The pipe reaching end
// of file usually means the child is exiting, but it can close the pipe and
// still hang (in a library destructor), so this never blocks past the deadline.
bool reap_before(pid_t child, Clock::time_point deadline, ForkedChildResult& result) {
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) {
      record_wait_status(status, result);
      return true;
    }
    if (done < 0 && errno != EINTR) return false;
    if (Clock::now() >= deadline) return false;
    const timespec pause{0, 100'000};  // 0.1 ms: exiting takes microseconds
    ::nanosleep(&pause, nullptr);
  }
}

void kill_and_reap(pid_t child) {
  // The child made itself a process group leader, so this also reaches
  // anything the driver may have spawned that still holds the pipe.
  ::kill(-child, SIGKILL);
  ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t put = ::write(fd, text.data(), text.size());
    if (put < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(put));
  }
  return true;
}

ForkedChildResult run_in_forked_child(const std::function<int(int write_fd)>& child_main,
                                      std::chrono::nanoseconds time_limit) {
  ForkedChildResult result;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  const auto started = Clock::now();
  const pid_t child = ::fork();
  if (child < 0) {
    result.error = std::string("cannot fork: ") + std::strerror(errno);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return result;
  }
  if (child == 0) {
    ::close(pipe_fds[0]);
    ::setpgid(0, 0);
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    // A parent that stopped reading must not kill the child silently halfway.
    ::signal(SIGPIPE, SIG_IGN);
    const int status = child_main(pipe_fds[1]);
    ::_exit(status);
  }
  // Also from this side, so a kill at the deadline reaches the group even if
  // the child has not run its own setpgid yet.
  ::setpgid(child, child);
  ::close(pipe_fds[1]);
  const auto deadline = started + time_limit;
  bool reached_end = false;
  char buffer[4096];
  while (!reached_end) {
    const int wait_ms = milliseconds_left(deadline);
    if (wait_ms == 0) break;
    pollfd readable{pipe_fds[0], POLLIN, 0};
    const int ready = ::poll(&readable, 1, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) break;  // time limit reached
    const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      break;
    }
    if (got == 0) reached_end = true;
    else result.output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(pipe_fds[0]);
  if (!reached_end || !reap_before(child, deadline, result)) {
    kill_and_reap(child);
    result.ending = ForkedChildResult::Ending::timed_out;
  }
  result.elapsed = Clock::now() - started;
  return result;
}

std::string describe_signal(int signal) {
  std::string text;
  if (const char* abbreviation = ::sigabbrev_np(signal)) text = std::string("SIG") + abbreviation;
  else text = "signal " + std::to_string(signal);
  if (const char* description = ::sigdescr_np(signal)) text += std::string(" (") + description + ")";
  return text;
}

std::expected<std::filesystem::path, std::string> running_executable() {
  std::error_code error;
  auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    return std::unexpected("cannot find the running gpuenv binary through /proc/self/exe (" + error.message() +
                           "): run gpuenv where /proc is mounted");
  }
  return path;
}

int replace_process(const std::string& program, std::vector<std::string> arguments,
                    const std::map<std::string, std::string>& variables) {
  std::vector<std::string> environment_entries;
  for (const auto& [name, value] : variables) environment_entries.push_back(name + "=" + value);
  std::vector<char*> environment_pointers;
  for (auto& entry : environment_entries) environment_pointers.push_back(entry.data());
  environment_pointers.push_back(nullptr);
  std::vector<char*> argument_pointers;
  for (auto& argument : arguments) argument_pointers.push_back(argument.data());
  argument_pointers.push_back(nullptr);
  ::execve(program.c_str(), argument_pointers.data(), environment_pointers.data());
  return errno;
}

std::string running_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  while (!text.empty() && text.back() == '\0') text.pop_back();
  std::replace(text.begin(), text.end(), '\0', ' ');
  return text;
}

}  // namespace gpuenv::util
