// Starts tests/support/test_http_server.py (a real HTTP server on 127.0.0.1,
// port chosen by the OS) for one test, and talks to its control channel:
// JSON lines over the child's stdin/stdout. Closing stdin stops the server,
// so it never outlives the test process, even when a test crashes.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace gpuenv::testing {

struct ServedRequest {
  std::string path;
  std::string proxied_url;        // the absolute URL asked for, when used as a proxy
  std::string if_none_match;      // empty when the header was absent
  std::string if_modified_since;  // empty when the header was absent
  std::string authorization;      // empty when the header was absent
  int status = 0;   // 0: still pending (or dropped); -1: the client hung up first
  double start = 0;  // request read; seconds on the server's monotonic clock
  double end = 0;    // answer about to be sent; -1 while still pending
};

// HTTPS instead of HTTP: the server's certificate and key (PEM), and when
// client_ca is set, a client certificate signed by it is required.
struct TlsServerFiles {
  std::filesystem::path certificate;
  std::filesystem::path key;
  std::filesystem::path client_ca;
};

class TestHttpServer {
 public:
  explicit TestHttpServer(const std::filesystem::path& root, const std::optional<TlsServerFiles>& tls = {})
      : scheme_(tls ? "https" : "http") {
    int to_child[2];
    int from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) {
      throw std::runtime_error("pipe2 failed");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    const std::string script = std::string(GPUENV_SOURCE_DIR) + "/tests/support/test_http_server.py";
    const std::string root_arg = root.string();
    std::vector<std::string> arguments{"python3", script, root_arg};
    if (tls) {
      arguments.insert(arguments.end(), {"--tls", tls->certificate.string(), tls->key.string()});
      if (!tls->client_ca.empty()) arguments.insert(arguments.end(), {"--client-ca", tls->client_ca.string()});
    }
    std::vector<char*> argv;
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    const int spawned = ::posix_spawnp(&pid_, "python3", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    control_in_ = to_child[1];
    control_out_ = from_child[0];
    if (spawned != 0) throw std::runtime_error("cannot start python3 for the test HTTP server");
    port_ = read_reply().at("port").get<int>();
  }

  ~TestHttpServer() {
    if (control_in_ >= 0) ::close(control_in_);  // the server exits on EOF
    if (control_out_ >= 0) ::close(control_out_);
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }

  TestHttpServer(const TestHttpServer&) = delete;
  TestHttpServer& operator=(const TestHttpServer&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path) const {
    return scheme_ + "://127.0.0.1:" + std::to_string(port_) + path;
  }

  nlohmann::json command(const nlohmann::json& command) {
    std::string line = command.dump() + "\n";
    std::string_view rest = line;
    while (!rest.empty()) {
      const ssize_t written = ::write(control_in_, rest.data(), rest.size());
      if (written <= 0) throw std::runtime_error("the test HTTP server's control channel closed");
      rest.remove_prefix(static_cast<std::size_t>(written));
    }
    auto reply = read_reply();
    if (!reply.value("ok", false)) {
      throw std::runtime_error("test HTTP server refused " + command.dump() + ": " + reply.dump());
    }
    return reply;
  }

  // Queues a misbehaviour for `path` (see test_http_server.py for kinds).
  void fault(const std::string& path, nlohmann::json fault) {
    fault["op"] = "fault";
    fault["path"] = path;
    command(fault);
  }
  void fail_with_status(const std::string& path, int status, int times = 1) {
    fault(path, {{"kind", "status"}, {"status", status}, {"times", times}});
  }
  void set_latency(double seconds) { command({{"op", "latency"}, {"seconds", seconds}}); }
  void set_cache_control(const std::string& value) {
    command({{"op", "cache_control"}, {"value", value}});
  }
  void clear() { command({{"op", "clear"}}); }
  // Answers `path` with a redirect to `location` (a URL or a path).
  void redirect(const std::string& path, const std::string& location, int times = -1) {
    fault(path, {{"kind", "redirect"}, {"location", location}, {"times", times}});
  }
  // Serves only requests under /t/<token>/ (the prefix dropped), 403 otherwise.
  void require_token(const std::string& token) { command({{"op", "require_auth"}, {"token", token}}); }
  // Serves only requests with Basic auth of "user:password", 401 otherwise.
  void require_basic_auth(const std::string& user_password) {
    command({{"op", "require_auth"}, {"basic", user_password}});
  }

  std::vector<ServedRequest> requests() {
    std::vector<ServedRequest> served;
    // Kept in a variable: a range-for over command(...).at(...) would walk a
    // destroyed temporary (g++ 12 does not extend its lifetime).
    const nlohmann::json reply = command({{"op", "requests"}});
    for (const auto& entry : reply.at("requests")) {
      ServedRequest request;
      request.path = entry.at("path").get<std::string>();
      if (entry.at("proxied_url").is_string()) request.proxied_url = entry.at("proxied_url");
      if (entry.at("if_none_match").is_string()) request.if_none_match = entry.at("if_none_match");
      if (entry.at("if_modified_since").is_string()) {
        request.if_modified_since = entry.at("if_modified_since");
      }
      if (entry.at("authorization").is_string()) request.authorization = entry.at("authorization");
      request.status = entry.at("status").get<int>();
      request.start = entry.at("start").get<double>();
      request.end = entry.at("end").is_number() ? entry.at("end").get<double>() : -1;
      served.push_back(std::move(request));
    }
    return served;
  }

  std::vector<ServedRequest> requests_for(const std::string& path) {
    std::vector<ServedRequest> matching;
    for (auto& request : requests()) {
      if (request.path == path) matching.push_back(std::move(request));
    }
    return matching;
  }

 private:
  nlohmann::json read_reply() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (true) {
      if (const auto newline = buffered_.find('\n'); newline != std::string::npos) {
        std::string line = buffered_.substr(0, newline);
        buffered_.erase(0, newline + 1);
        return nlohmann::json::parse(line);
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd readable{control_out_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&readable, 1, static_cast<int>(left.count())) <= 0) {
        throw std::runtime_error("the test HTTP server did not answer within 60 s");
      }
      char chunk[65536];
      const ssize_t count = ::read(control_out_, chunk, sizeof chunk);
      if (count <= 0) throw std::runtime_error("the test HTTP server exited");
      buffered_.append(chunk, static_cast<std::size_t>(count));
    }
  }

  std::string scheme_;
  pid_t pid_ = -1;
  int control_in_ = -1;
  int control_out_ = -1;
  int port_ = 0;
  std::string buffered_;
};

}  // namespace gpuenv::testing
