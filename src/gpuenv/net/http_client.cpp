#include "gpuenv/net/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace gpuenv::net {
namespace {

constexpr std::size_t kErrorBodyLimit = 2048;

std::string header_value(CURL* easy, const char* name) {
  struct curl_header* header = nullptr;
  // Index -1 with request -1: the last occurrence in the final response,
  // after any redirects.
  if (curl_easy_header(easy, name, 0, CURLH_HEADER, -1, &header) == CURLHE_OK && header) {
    return header->value;
  }
  return {};
}

}  // namespace

struct HttpClient::Transfer {
  HttpRequest request;
  Completion on_complete;
  std::chrono::steady_clock::time_point not_before;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  HttpResponse response;
  bool receiver_refused = false;
  char error_buffer[CURL_ERROR_SIZE] = {};

  ~Transfer() {
    if (easy) curl_easy_cleanup(easy);
    if (headers) curl_slist_free_all(headers);
  }

  static std::size_t on_write(char* data, std::size_t size, std::size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    const std::size_t length = size * count;
    long status = 0;
    curl_easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status < 300) {
      if (transfer->request.on_body && !transfer->request.on_body({data, length})) {
        transfer->receiver_refused = true;
        return 0;  // any count other than `length` makes libcurl abort
      }
    } else if (status >= 400) {
      auto& body = transfer->response.error_body;
      body.append(data, std::min(length, kErrorBodyLimit - std::min(kErrorBodyLimit, body.size())));
    }
    return length;
  }
};

struct HttpClient::Impl {
  HttpClientOptions options;
  CURLM* multi = nullptr;
  std::deque<std::unique_ptr<Transfer>> queued;
  std::vector<std::unique_ptr<Transfer>> running;

  explicit Impl(HttpClientOptions opts) : options(std::move(opts)) {
    if (options.max_parallel == 0) options.max_parallel = 1;
  }

  ~Impl() {
    for (auto& transfer : running) curl_multi_remove_handle(multi, transfer->easy);
    running.clear();
    if (multi != nullptr) curl_multi_cleanup(multi);
  }

  // libcurl is loaded (dlopen, ~5 ms with its TLS stack) and the multi
  // handle made only once a transfer is to run: a client that an answer
  // from the cache leaves idle costs nothing.
  void ensure_multi() {
    if (multi != nullptr) return;
    initialise_libcurl_once();
    multi = curl_multi_init();
    if (multi == nullptr) throw std::runtime_error("libcurl could not create a multi handle");
  }

  void configure(Transfer& transfer) {
    CURL* easy = curl_easy_init();
    if (easy == nullptr) throw std::runtime_error("libcurl could not create an easy handle");
    transfer.easy = easy;
    configure_transfer(easy, options.settings, transfer.request.url);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, &transfer);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Transfer::on_write);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer.error_buffer);
    // Uncompressed repodata.json is served gzip-encoded by most channels;
    // letting libcurl negotiate and undo that saves most of the transfer.
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    // Over HTTPS, TLS's ALPN tells within the handshake whether the server
    // speaks HTTP/2, so waiting for that answer is cheap and lets one
    // multiplexed connection carry every subdir. Over plain http:// the
    // answer only comes with a response (measured: a transfer sat out a
    // whole 300 ms response), so there each transfer connects at once.
    if (transfer.request.url.starts_with("https://")) curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    for (const auto& line : transfer.request.headers) {
      transfer.headers = curl_slist_append(transfer.headers, line.c_str());
    }
    if (transfer.headers) curl_easy_setopt(easy, CURLOPT_HTTPHEADER, transfer.headers);
  }

  // Starts queued transfers that are due, in submission order, while there
  // is room; returns when the next not-yet-due one becomes due (if any).
  std::optional<std::chrono::steady_clock::time_point> start_due() {
    const auto now = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> next_due;
    for (auto it = queued.begin(); it != queued.end();) {
      if (running.size() >= options.max_parallel) break;
      if ((*it)->not_before > now) {
        if (!next_due || (*it)->not_before < *next_due) next_due = (*it)->not_before;
        ++it;
        continue;
      }
      auto transfer = std::move(*it);
      it = queued.erase(it);
      configure(*transfer);
      curl_multi_add_handle(multi, transfer->easy);
      running.push_back(std::move(transfer));
    }
    return next_due;
  }

  void finish(Transfer& transfer, CURLcode code) {
    HttpResponse& response = transfer.response;
    response.failure = classify_failure(code, transfer.error_buffer, transfer.receiver_refused);
    if (response.failure != TransportFailure::none) {
      response.failure_detail = describe_failure(code, transfer.error_buffer, options.settings, transfer.request.url);
    }
    curl_easy_getinfo(transfer.easy, CURLINFO_RESPONSE_CODE, &response.status);
    if (response.status != 0) {
      response.etag = header_value(transfer.easy, "ETag");
      response.last_modified = header_value(transfer.easy, "Last-Modified");
      response.cache_control = header_value(transfer.easy, "Cache-Control");
    }
    curl_off_t length = -1;
    curl_easy_getinfo(transfer.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    if (length >= 0) response.content_length = static_cast<std::uint64_t>(length);
    curl_off_t received = 0;
    curl_easy_getinfo(transfer.easy, CURLINFO_SIZE_DOWNLOAD_T, &received);
    response.body_bytes = static_cast<std::uint64_t>(received);
  }

  void collect_finished() {
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      const auto it = std::find_if(running.begin(), running.end(), [&](const auto& transfer) {
        return transfer->easy == message->easy_handle;
      });
      if (it == running.end()) continue;
      std::unique_ptr<Transfer> transfer = std::move(*it);
      running.erase(it);
      finish(*transfer, message->data.result);
      curl_multi_remove_handle(multi, transfer->easy);
      // The completion may submit more transfers; those only join `queued`.
      transfer->on_complete(std::move(transfer->response));
    }
  }
};

HttpClient::HttpClient(HttpClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

HttpClient::~HttpClient() = default;

void HttpClient::submit(HttpRequest request, Completion on_complete,
                        std::chrono::steady_clock::time_point not_before) {
  auto transfer = std::make_unique<Transfer>();
  transfer->request = std::move(request);
  transfer->on_complete = std::move(on_complete);
  transfer->not_before = not_before;
  impl_->queued.push_back(std::move(transfer));
}

void HttpClient::run() {
  using namespace std::chrono;
  Impl& impl = *impl_;
  if (impl.queued.empty() && impl.running.empty()) return;
  impl.ensure_multi();
  impl.start_due();
  while (!impl.queued.empty() || !impl.running.empty()) {
    int still_running = 0;
    curl_multi_perform(impl.multi, &still_running);
    impl.collect_finished();
    // Fill the slots finished transfers freed, and start follow-ups the
    // completions queued; libcurl expires a new handle at once, so the poll
    // below returns promptly to drive it.
    const auto next_due = impl.start_due();
    if (impl.queued.empty() && impl.running.empty()) break;

    auto wait = milliseconds(1000);
    if (next_due && impl.running.size() < impl.options.max_parallel) {
      const auto until_due = duration_cast<milliseconds>(*next_due - steady_clock::now());
      wait = std::clamp(until_due + milliseconds(1), milliseconds(0), wait);
    }
    if (impl.running.empty()) {
      std::this_thread::sleep_for(wait);  // only delayed retries are left
      impl.start_due();
    } else {
      curl_multi_poll(impl.multi, nullptr, 0, static_cast<int>(wait.count()), nullptr);
    }
  }
}

}  // namespace gpuenv::net
