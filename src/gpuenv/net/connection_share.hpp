// What libcurl may share between every transfer of one run, repodata and
// packages, on any thread: resolved host names and TLS sessions, so the
// package downloads after a repodata fetch resume its TLS sessions instead
// of doing full handshakes again. (Connections themselves stay with each
// multi handle: libcurl does not support sharing them across threads.)
#pragma once

#include <memory>
#include <mutex>

namespace gpuenv::net {

class ConnectionShare {
 public:
  ConnectionShare();
  ~ConnectionShare();
  ConnectionShare(const ConnectionShare&) = delete;
  ConnectionShare& operator=(const ConnectionShare&) = delete;

  // The CURLSH* for CURLOPT_SHARE (void*: no curl.h here), made on first
  // use: a command that transfers nothing never loads libcurl.
  void* handle();

  // The lock of one kind of shared data (a curl_lock_data), for libcurl's
  // lock callbacks: transfers on several threads use the share at once.
  std::mutex& lock_for(int data) { return locks_[static_cast<unsigned>(data) % 8]; }

 private:
  std::once_flag made_;
  void* share_ = nullptr;
  std::mutex locks_[8];
};

}  // namespace gpuenv::net
