#include "gpuenv/builder/process_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <deque>

extern char** environ;

namespace gpuenv::build {

namespace {

// The last lines of a stream that arrives in arbitrary pieces.
class LineTail {
 public:
  void add(std::string_view text) {
    for (const char c : text) {
      if (c == '\n') {
        push(std::move(current_));
        current_.clear();
      } else if (current_.size() < kMaxLine) {
        current_ += c;
      }
    }
  }
  std::string text() const {
    std::string result;
    for (const auto& line : lines_) result += line + "\n";
    if (!current_.empty()) result += current_ + "\n";
    return result;
  }

 private:
  static constexpr std::size_t kMaxLine = 4096;  // a binary blob printed by mistake
  void push(std::string line) {
    lines_.push_back(std::move(line));
    if (lines_.size() > kTailLines) lines_.pop_front();
  }
  std::deque<std::string> lines_;
  std::string current_;
};

std::string path_of(const std::vector<std::string>& environment) {
  for (const auto& entry : environment) {
    if (entry.starts_with("PATH=")) return entry.substr(5);
  }
  return "/usr/bin:/bin";
}

// posix_spawnp looks the program up in the parent's PATH; the child's is
// the one that should decide (BUILD_PREFIX/bin first).
std::string find_program(const std::string& name, const std::vector<std::string>& environment) {
  if (name.find('/') != std::string::npos) return name;
  const auto found = find_on_path(name, path_of(environment));
  return found.empty() ? name : found;
}

}  // namespace

std::string find_on_path(const std::string& program, const std::string& path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto end = std::min(path.find(':', start), path.size());
    const std::string directory = end > start ? path.substr(start, end - start) : ".";
    const std::string candidate = directory + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

std::vector<std::string> current_environment() {
  std::vector<std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) result.emplace_back(*entry);
  return result;
}

ProcessResult run_process(const ProcessRequest& request) {
  ProcessResult result;
  if (request.argv.empty()) {
    result.start_error = "no program to run";
    return result;
  }
  int output[2];
  if (::pipe2(output, O_CLOEXEC) != 0) {
    result.start_error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  std::vector<char*> argv;
  for (const auto& arg : request.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& entry : request.environment) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  const std::string program = find_program(request.argv.front(), request.environment);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, output[1], STDERR_FILENO);
  if (!request.working_directory.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, request.working_directory.c_str());
  }
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(output[1]);
  if (spawned != 0) {
    ::close(output[0]);
    result.start_error = "cannot run " + program + ": " + std::strerror(spawned);
    return result;
  }
  result.started = true;
  LineTail tail;
  char buffer[1 << 16];
  auto next_check = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (true) {
    if (request.stop_if && result.stopped.empty()) {
      // A chatty child must not starve the check: it runs once a second
      // whether or not output arrives.
      const auto now = std::chrono::steady_clock::now();
      if (now >= next_check) {
        next_check = now + std::chrono::seconds(1);
        if (auto why = request.stop_if(); !why.empty()) {
          result.stopped = std::move(why);
          ::kill(pid, SIGKILL);  // its output pipe closes and the reads below end
          continue;
        }
      }
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_check - now).count();
      pollfd ready{output[0], POLLIN, 0};
      const int polled = ::poll(&ready, 1, static_cast<int>(std::max<long long>(wait, 1)));
      if (polled < 0 && errno != EINTR) break;
      if (polled <= 0) continue;
    }
    const ssize_t count = ::read(output[0], buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) break;
    const std::string_view piece(buffer, static_cast<std::size_t>(count));
    tail.add(piece);
    if (request.on_output) request.on_output(piece);
  }
  ::close(output[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.output_tail = tail.text();
  return result;
}

}  // namespace gpuenv::build
