#include "gpuenv/prefix/link_scripts.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "gpuenv/package/file_content.hpp"
#include "gpuenv/prefix/prefix_error.hpp"

extern char** environ;

namespace gpuenv::prefix {

namespace {

constexpr std::size_t kKeptOutput = 64 * 1024;

// conda runs link scripts with bash on Linux; packages rely on bashisms.
std::string shell() {
  for (const char* candidate : {"/bin/bash", "/usr/bin/bash", "/bin/sh"}) {
    if (::access(candidate, X_OK) == 0) return candidate;
  }
  return "/bin/sh";
}

std::vector<std::string> script_environment(const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto equals = text.find('=');
    if (equals != std::string::npos) variables[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const auto& [name, value] : overrides) variables[name] = value;
  std::vector<std::string> environment;
  for (const auto& [name, value] : variables) environment.push_back(name + "=" + value);
  return environment;
}

}  // namespace

std::string_view to_string(LinkScript action) noexcept {
  switch (action) {
    case LinkScript::pre_link:
      return "pre-link";
    case LinkScript::post_link:
      return "post-link";
    case LinkScript::pre_unlink:
      break;
  }
  return "pre-unlink";
}

namespace {

// Empty for a name that is no package name (a hostile record's
// "./../x" would make bin/.<name>-... a path outside script_root/bin).
std::filesystem::path link_script_path(LinkScript action, const specs::PackageRecord& package,
                                       const std::filesystem::path& script_root) {
  const std::string& name = package.name;
  if (name.empty() || name.front() == '.' || name.find_first_of(std::string_view("/\0", 2)) != std::string::npos) {
    return {};
  }
  return script_root / "bin" / ("." + name + "-" + std::string(to_string(action)) + ".sh");
}

}  // namespace

bool has_link_script(LinkScript action, const specs::PackageRecord& package,
                     const std::filesystem::path& script_root) {
  const auto script = link_script_path(action, package, script_root);
  return !script.empty() && ::access(script.c_str(), F_OK) == 0;
}

LinkScriptRun run_link_script(LinkScript action, const specs::PackageRecord& package,
                              const std::filesystem::path& script_root,
                              const std::filesystem::path& prefix,
                              const std::filesystem::path& root_prefix) {
  LinkScriptRun run;
  run.action = action;
  const auto script = link_script_path(action, package, script_root);
  if (script.empty() || ::access(script.c_str(), F_OK) != 0) return run;
  run.ran = true;

  const char* path = std::getenv("PATH");
  const auto environment = script_environment({
      {"PREFIX", prefix.string()},
      {"SOURCE_DIR", script_root.string()},
      {"ROOT_PREFIX", root_prefix.string()},
      {"PKG_NAME", package.name},
      {"PKG_VERSION", package.version},
      {"PKG_BUILDNUM", std::to_string(package.build_number)},
      {"PATH", script.parent_path().string() + (path != nullptr ? std::string(":") + path : "")},
  });
  std::vector<char*> envp;
  for (const auto& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  const auto interpreter = shell();
  const std::string trace = "-x";
  const std::string script_text = script.string();
  std::vector<char*> argv = {const_cast<char*>(interpreter.c_str()), const_cast<char*>(trace.c_str()),
                             const_cast<char*>(script_text.c_str()), nullptr};

  int output[2];
  if (::pipe2(output, O_CLOEXEC) != 0) {
    throw PrefixError("cannot run " + script_text + ": " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, output[1], STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&actions, prefix.c_str());
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, interpreter.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(output[1]);
  if (spawned != 0) {
    ::close(output[0]);
    throw PrefixError("cannot run " + script_text + " with " + interpreter + ": " + std::strerror(spawned));
  }
  char buffer[8192];
  while (true) {
    const ssize_t count = ::read(output[0], buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) break;
    run.output.append(buffer, static_cast<std::size_t>(count));
    if (run.output.size() > 2 * kKeptOutput) run.output.erase(0, run.output.size() - kKeptOutput);
  }
  ::close(output[0]);
  if (run.output.size() > kKeptOutput) run.output.erase(0, run.output.size() - kKeptOutput);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

std::string take_script_messages(const std::filesystem::path& prefix) {
  const auto file = prefix / ".messages.txt";
  try {
    auto text = package::read_whole_file(file);
    if (!text) return {};
    ::unlink(file.c_str());
    return std::move(*text);
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace gpuenv::prefix
