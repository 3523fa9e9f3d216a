#include "gpuenv/package/downloader.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gpuenv/specs/channel.hpp"
#include "gpuenv/net/file_url.hpp"
#include "gpuenv/net/transfer_policy.hpp"
#include "gpuenv/util/subprocess.hpp"

namespace gpuenv::package {

namespace {

constexpr long kReceiveBuffer = 512 * 1024;  // fewer, larger write callbacks
// libcurl hands the body over in pieces of at most 16 KiB (CURL_MAX_WRITE_SIZE)
// whatever the receive buffer: gathered to this size, a 350 MB install
// writes 400 times instead of 22,000 (8 parallel downloads: 8 MiB of buffers).
constexpr std::size_t kWriteGather = 1024 * 1024;

// Writes every byte (util::write_all retries short writes and EINTR).
bool write_all(int fd, const char* data, std::size_t size) {
  return util::write_all(fd, std::string_view(data, size));
}

// The destination file and the running digests of one attempt.
struct Sink {
  int fd = -1;
  std::optional<StreamingHash> sha256;
  std::optional<StreamingHash> md5;
  std::uint64_t bytes = 0;
  int write_error = 0;  // errno of a failed write
  bool too_large = false;

  std::string open(const DownloadRequest& request) {
    close();
    fd = ::open(request.destination.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      return "cannot write " + request.destination.string() + ": " + std::strerror(errno);
    }
    sha256.reset();
    md5.reset();
    if (request.want_sha256) sha256.emplace(HashAlgorithm::sha256);
    if (request.want_md5) md5.emplace(HashAlgorithm::md5);
    bytes = 0;
    write_error = 0;
    too_large = false;
    pending.clear();
    pending.reserve(kWriteGather);
    return {};
  }

  bool take(const char* data, std::size_t size) {
    if (sha256) sha256->update(data, size);
    if (md5) md5->update(data, size);
    bytes += size;
    if (pending.empty() && size >= kWriteGather) return write_out(data, size);
    pending.append(data, size);
    return pending.size() < kWriteGather || flush();
  }

  // Writes what take() gathered; false (write_error set) when it cannot.
  bool flush() {
    const bool written = pending.empty() || write_out(pending.data(), pending.size());
    pending.clear();
    return written;
  }

  FileDigests finish() {
    FileDigests digests;
    if (sha256) digests.sha256 = sha256->finish_hex();
    if (md5) digests.md5 = md5->finish_hex();
    digests.size = bytes;
    return digests;
  }

  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
    pending.clear();
  }
  ~Sink() { close(); }

 private:
  bool write_out(const char* data, std::size_t size) {
    if (write_all(fd, data, size)) return true;
    write_error = errno;
    return false;
  }

  std::string pending;  // taken, not written yet
};

}  // namespace

struct Downloader::Impl {
  struct Transfer {
    DownloadRequest request;
    Completion done;
    int attempt = 0;
    std::chrono::steady_clock::time_point not_before;
    CURL* easy = nullptr;
    Sink sink;
    std::string fetched_url;  // request.url with the channel's credentials
    char error_buffer[CURL_ERROR_SIZE] = {};
  };

  DownloaderOptions options;
  CURLM* multi = nullptr;
  std::mutex mutex;
  std::deque<std::unique_ptr<Transfer>> submitted;  // guarded by mutex
  bool stopping = false;                            // guarded by mutex
  // Owned by the transfer thread only:
  std::list<std::unique_ptr<Transfer>> waiting;  // queued or backing off
  std::vector<std::unique_ptr<Transfer>> running;
  std::thread thread;

  explicit Impl(DownloaderOptions chosen) : options(std::move(chosen)) {
    net::initialise_libcurl_once();
    multi = curl_multi_init();
    if (multi == nullptr) throw std::runtime_error("libcurl cannot create a multi handle");
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(options.max_parallel));
    thread = std::thread([this] { loop(); });
  }

  ~Impl() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    curl_multi_wakeup(multi);
    thread.join();
    curl_multi_cleanup(multi);
  }

  static std::size_t on_data(char* data, std::size_t size, std::size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    const std::size_t total = size * count;
    long status = 0;
    curl_easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 400) return total;  // an error page: not the package, and not written
    const auto& expected = transfer->request.expected_size;
    if (expected && transfer->sink.bytes + total > *expected) {
      transfer->sink.too_large = true;
      return 0;  // aborts with CURLE_WRITE_ERROR
    }
    return transfer->sink.take(data, total) ? total : 0;
  }

  void start(std::unique_ptr<Transfer> transfer) {
    if (auto error = transfer->sink.open(transfer->request); !error.empty()) {
      finish(std::move(transfer), DownloadResult{std::move(error), {}, 0});
      return;
    }
    CURL* easy = curl_easy_init();
    transfer->easy = easy;
    transfer->fetched_url = specs::with_channel_credentials(transfer->request.url, options.channel_credentials);
    net::configure_transfer(easy, options.client, transfer->fetched_url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Impl::on_data);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, transfer.get());
    curl_easy_setopt(easy, CURLOPT_PRIVATE, transfer.get());
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer->error_buffer);
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, kReceiveBuffer);
    // Package files are already compressed: ask for them as they are.
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, nullptr);
    curl_multi_add_handle(multi, easy);
    running.push_back(std::move(transfer));
  }

  void finish(std::unique_ptr<Transfer> transfer, DownloadResult result) {
    transfer->sink.close();
    transfer->done(std::move(result));
  }

  void completed(CURL* easy, CURLcode code) {
    Transfer* raw = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, reinterpret_cast<char**>(&raw));
    const auto it = std::find_if(running.begin(), running.end(),
                                 [raw](const auto& transfer) { return transfer.get() == raw; });
    auto transfer = std::move(*it);
    running.erase(it);
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    curl_multi_remove_handle(multi, easy);
    curl_easy_cleanup(easy);
    transfer->easy = nullptr;
    const auto url = specs::mask_credentials(transfer->request.url);

    DownloadResult result;
    result.http_status = status;
    // The gathered tail reaches the file before the download counts as done.
    if (code == CURLE_OK && status < 400 && !transfer->sink.flush()) code = CURLE_WRITE_ERROR;
    if (code == CURLE_OK && status < 400) {
      result.digests = transfer->sink.finish();
      finish(std::move(transfer), std::move(result));
      return;
    }
    const auto failure = net::classify_failure(code, transfer->error_buffer, transfer->sink.write_error != 0);
    if (net::RetryPolicy::is_transient(failure, code == CURLE_OK ? status : 0) &&
        options.retry.may_retry(transfer->attempt + 1)) {
      ++transfer->attempt;
      transfer->not_before = std::chrono::steady_clock::now() + options.retry.delay_after(transfer->attempt);
      waiting.push_back(std::move(transfer));
      return;
    }
    if (transfer->sink.too_large) {
      result.error = "downloading " + url + " failed: the server sent more than the " +
                     std::to_string(*transfer->request.expected_size) +
                     " bytes the repodata announces; the channel's index is stale or the "
                     "server is misbehaving";
    } else if (transfer->sink.write_error != 0) {
      result.error = "downloading " + url + " failed: cannot write " +
                     transfer->request.destination.string() + ": " +
                     std::strerror(transfer->sink.write_error);
    } else if (code == CURLE_OK) {
      result.error = "downloading " + url + " failed: the server answered HTTP " +
                     std::to_string(status) +
                     (status == 404 ? " (not found: the channel's index is stale, refresh it)"
                                    : "");
    } else {
      const std::string detail =
          net::describe_failure(code, transfer->error_buffer, options.client, transfer->request.url);
      result.error = "downloading " + url + " failed: " + detail +
                     (transfer->attempt > 0
                          ? " (after " + std::to_string(transfer->attempt + 1) + " attempts)"
                          : "");
    }
    finish(std::move(transfer), std::move(result));
  }

  void loop() {
    while (true) {
      bool stop = false;
      {
        std::lock_guard lock(mutex);
        while (!submitted.empty()) {
          waiting.push_back(std::move(submitted.front()));
          submitted.pop_front();
        }
        stop = stopping;
      }
      if (stop) break;
      const auto now = std::chrono::steady_clock::now();
      for (auto it = waiting.begin(); it != waiting.end() && running.size() < options.max_parallel;) {
        if ((*it)->not_before <= now) {
          start(std::move(*it));
          it = waiting.erase(it);
        } else {
          ++it;
        }
      }
      int still_running = 0;
      curl_multi_perform(multi, &still_running);
      int queued = 0;
      while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
        if (message->msg == CURLMSG_DONE) completed(message->easy_handle, message->data.result);
      }
      // Sleep until libcurl has work, a retry is due or a submission wakes
      // us; computed after the completions, which may have queued retries.
      auto wait = std::chrono::milliseconds(running.empty() ? 1000 : 100);
      const auto after = std::chrono::steady_clock::now();
      for (const auto& transfer : waiting) {
        if (transfer->not_before <= after) {
          // Due: start it now if a slot is free; otherwise a finishing
          // transfer wakes the poll (its due time, already past, must not
          // make the wait zero: that was a spinning loop).
          if (running.size() < options.max_parallel) {
            wait = std::chrono::milliseconds(0);
            break;
          }
          continue;
        }
        wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(
                                  transfer->not_before - after) + std::chrono::milliseconds(1));
      }
      curl_multi_poll(multi, nullptr, 0, static_cast<int>(wait.count()), nullptr);
    }
    // Stopping: whatever has not finished gets an error.
    for (auto& transfer : running) {
      curl_multi_remove_handle(multi, transfer->easy);
      curl_easy_cleanup(transfer->easy);
      transfer->easy = nullptr;
      const auto url = specs::mask_credentials(transfer->request.url);
      finish(std::move(transfer), DownloadResult{"downloading " + url + " was cancelled", {}, 0});
    }
    running.clear();
    for (auto& transfer : waiting) {
      const auto url = specs::mask_credentials(transfer->request.url);
      finish(std::move(transfer), DownloadResult{"downloading " + url + " was cancelled", {}, 0});
    }
    waiting.clear();
  }
};

Downloader::Downloader(DownloaderOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Downloader::~Downloader() = default;

void Downloader::submit(DownloadRequest request, Completion done) {
  auto transfer = std::make_unique<Impl::Transfer>();
  transfer->request = std::move(request);
  transfer->done = std::move(done);
  {
    std::lock_guard lock(impl_->mutex);
    impl_->submitted.push_back(std::move(transfer));
  }
  curl_multi_wakeup(impl_->multi);
}

DownloadResult copy_local_package(const DownloadRequest& request) {
  DownloadResult result;
  const auto local = net::path_from_file_url(request.url);
  if (!local) {
    result.error = "cannot download " + specs::mask_credentials(request.url) + ": " + local.error();
    return result;
  }
  const std::filesystem::path& source = *local;
  const int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    result.error = "cannot read " + source.string() + " (from " + specs::mask_credentials(request.url) + "): " +
                   std::strerror(errno);
    return result;
  }
  Sink sink;
  if (auto error = sink.open(request); !error.empty()) {
    ::close(in);
    result.error = std::move(error);
    return result;
  }
  constexpr std::size_t kBuffer = 1u << 20;
  const std::unique_ptr<char[]> buffer(new char[kBuffer]);  // not zeroed: read fills what is used
  while (true) {
    const ssize_t count = ::read(in, buffer.get(), kBuffer);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      result.error = "cannot read " + source.string() + ": " + std::strerror(errno);
      break;
    }
    if (count == 0) break;
    if (request.expected_size && sink.bytes + static_cast<std::uint64_t>(count) > *request.expected_size) {
      result.error = source.string() + " is larger than the " +
                     std::to_string(*request.expected_size) +
                     " bytes its repodata record announces; the channel's index is stale";
      break;
    }
    if (!sink.take(buffer.get(), static_cast<std::size_t>(count))) {
      result.error = "cannot write " + request.destination.string() + ": " +
                     std::strerror(sink.write_error);
      break;
    }
  }
  ::close(in);
  if (result.ok() && !sink.flush()) {
    result.error = "cannot write " + request.destination.string() + ": " + std::strerror(sink.write_error);
  }
  if (result.ok()) result.digests = sink.finish();
  sink.close();
  return result;
}

}  // namespace gpuenv::package
