// Running a piece of this program in a forked child with a time limit.
//
// Used where a library we call may hang or crash (the CUDA driver in cuInit):
// the child does the risky work and writes what it learned to a pipe, the
// parent keeps what arrived, and a hang or a crash becomes an ordinary,
// reportable outcome instead of taking gpuenv down with it.
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpuenv::util {

struct ForkedChildResult {
  enum class Ending {
    exited,      // returned normally; exit_code holds its status
    signaled,    // killed by a signal it raised or received (a crash)
    timed_out,   // still running at the time limit; it was killed
    not_started  // fork or pipe failed; error says why
  };
  Ending ending = Ending::not_started;
  int exit_code = -1;
  int signal = 0;
  // Everything the child wrote to its pipe before it ended (or was killed).
  std::string output;
  std::chrono::nanoseconds elapsed{0};
  std::string error;
};

// Forks; the child runs `child_main(write_fd)` and exits with its return
// value (via _exit: no atexit handlers or stdio buffers of the parent run
// twice). The parent collects the child's output until it ends or
// `time_limit` passes, in which case the child's whole process group is
// killed with SIGKILL. The child gets no core dump limit beyond 0, so a
// crashing driver leaves no core files behind.
//
// Call it only while the process has a single thread: after fork the child
// may only rely on state that no other thread could have been holding.
ForkedChildResult run_in_forked_child(const std::function<int(int write_fd)>& child_main,
                                      std::chrono::nanoseconds time_limit);

// Writes all of `text` to `fd`, retrying short writes; for child code.
bool write_all(int fd, std::string_view text);

// "SIGSEGV (Segmentation fault)" for 11, and so on.
std::string describe_signal(int signal);

// The running program's own file (/proc/self/exe), which gpuenv hands to
// what it starts (CI jobs, activation hooks); the error says why not.
std::expected<std::filesystem::path, std::string> running_executable();

// Replaces this process with `program` (argv `arguments`, the environment
// exactly `variables`), as `gpuenv run` does so that the command's exit
// status, signals and terminal are its own. Returns only when execve fails,
// with its errno. Flush stdio before: nothing buffered survives the exec.
int replace_process(const std::string& program, std::vector<std::string> arguments,
                    const std::map<std::string, std::string>& variables);

// The running program's command line (/proc/self/cmdline) with its words
// joined by spaces, as conda-meta/history's "# cmd:" line records it; empty
// where /proc is not mounted.
std::string running_command_line();

}  // namespace gpuenv::util
