// HttpClient on its own: response fields, bodies of error responses,
// delayed starts (the retry backoff) and completions that queue more work.
#include <gtest/gtest.h>

#include "gpuenv/net/http_client.hpp"
#include "support/temp_directory.hpp"
#include "support/test_http_server.hpp"

namespace gpuenv::testing {
namespace {

using net::HttpClient;
using net::HttpRequest;
using net::HttpResponse;
using net::TransportFailure;

class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text_file(scratch_.path() / "file.txt", "hello, world");
    server_ = std::make_unique<TestHttpServer>(scratch_.path());
  }
  TempDirectory scratch_;
  std::unique_ptr<TestHttpServer> server_;
};

TEST_F(HttpClientTest, DeliversTheBodyAndTheValidators) {
  HttpClient client({});
  std::string body;
  std::optional<HttpResponse> response;
  client.submit(HttpRequest{server_->url("/file.txt"), {}, [&](std::string_view bytes) {
                              body.append(bytes);
                              return true;
                            }},
                [&](HttpResponse r) { response = std::move(r); });
  client.run();
  ASSERT_TRUE(response);
  EXPECT_TRUE(response->completed()) << response->failure_detail;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(body, "hello, world");
  EXPECT_EQ(response->content_length, 12u);
  EXPECT_EQ(response->body_bytes, 12u);
  EXPECT_FALSE(response->etag.empty());
  EXPECT_FALSE(response->last_modified.empty());
  EXPECT_EQ(response->cache_control, "public, max-age=60");
}

TEST_F(HttpClientTest, ErrorBodiesAreKeptApartFromTheReceiver) {
  HttpClient client({});
  bool receiver_called = false;
  std::optional<HttpResponse> response;
  client.submit(HttpRequest{server_->url("/missing.txt"), {}, [&](std::string_view) {
                              receiver_called = true;
                              return true;
                            }},
                [&](HttpResponse r) { response = std::move(r); });
  client.run();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 404);
  EXPECT_FALSE(receiver_called);
  EXPECT_NE(response->error_body.find("not found"), std::string::npos);
}

TEST_F(HttpClientTest, ARefusingReceiverAbortsTheTransfer) {
  HttpClient client({});
  std::optional<HttpResponse> response;
  client.submit(HttpRequest{server_->url("/file.txt"), {}, [](std::string_view) { return false; }},
                [&](HttpResponse r) { response = std::move(r); });
  client.run();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->failure, TransportFailure::receiver_aborted);
}

TEST_F(HttpClientTest, DelayedTransfersWaitAndCompletionsCanQueueMore) {
  HttpClient client({});
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> order;
  client.submit(HttpRequest{server_->url("/file.txt"), {}, {}},
                [&](HttpResponse) {
                  order.push_back("first");
                  client.submit(HttpRequest{server_->url("/file.txt"), {}, {}},
                                [&](HttpResponse) { order.push_back("follow-up"); });
                },
                started + std::chrono::milliseconds(300));
  client.submit(HttpRequest{server_->url("/file.txt"), {}, {}},
                [&](HttpResponse) { order.push_back("immediate"); });
  client.run();
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(300));
  EXPECT_EQ(order, (std::vector<std::string>{"immediate", "first", "follow-up"}));
  EXPECT_EQ(server_->requests().size(), 3u);
}

}  // namespace
}  // namespace gpuenv::testing
