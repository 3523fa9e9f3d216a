// Downloading package files over HTTP from a real local server: in
// parallel, hashed while streaming, retried on transient failures.
#include <gtest/gtest.h>
#include <time.h>

#include <fstream>
#include <future>
#include <random>

#include "gpuenv/package/downloader.hpp"
#include "support/temp_directory.hpp"
#include "support/test_certificates.hpp"
#include "support/test_http_server.hpp"

namespace gpuenv::package {
namespace {

using testing::TempDirectory;
using testing::TestHttpServer;

std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 generator(seed);
  std::string bytes(size, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(generator() & 0xff);
  return bytes;
}

void write(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

DownloadRequest request_for(std::string url, std::filesystem::path destination) {
  DownloadRequest request;
  request.url = std::move(url);
  request.destination = std::move(destination);
  return request;
}

// Quick retries keep failure tests short.
DownloaderOptions with_retries(int retries) {
  DownloaderOptions options;
  options.retry.max_retries = retries;
  options.retry.backoff = std::chrono::milliseconds(10);
  return options;
}

// Runs the requests and waits for all completions.
std::vector<DownloadResult> download_all(const std::vector<DownloadRequest>& requests,
                                         DownloaderOptions options = {}) {
  std::vector<std::promise<DownloadResult>> promises(requests.size());
  std::vector<std::future<DownloadResult>> futures;
  for (auto& promise : promises) futures.push_back(promise.get_future());
  std::vector<DownloadResult> results;
  Downloader downloader(options);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    downloader.submit(requests[i], [&promises, i](DownloadResult result) {
      promises[i].set_value(std::move(result));
    });
  }
  for (auto& future : futures) results.push_back(future.get());
  return results;
}

// While every slot is busy and more downloads wait for one, the transfer
// thread sleeps until libcurl has work: it used to poll with a zero timeout
// (a due download that could not start yet made the wait negative), a core
// spinning through a whole cold install (~100,000 polls for 100 packages).
TEST(PackageDownloader, WaitingForAFreeSlotDoesNotSpin) {
  TempDirectory scratch;
  TestHttpServer server(scratch / "served");
  server.set_latency(0.3);
  std::vector<DownloadRequest> requests;
  for (unsigned i = 0; i < 4; ++i) {
    const auto name = "slow" + std::to_string(i) + ".conda";
    write(scratch / "served" / name, random_bytes(1000, i));
    requests.push_back(request_for(server.url("/" + name), scratch / "out" / name));
  }
  std::filesystem::create_directories(scratch / "out");
  DownloaderOptions options;
  options.max_parallel = 1;  // three downloads wait while one runs
  const auto cpu_seconds = [] {
    timespec now{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
  };
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds();
  const auto results = download_all(requests, options);
  const double cpu = cpu_seconds() - cpu_start;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  for (const auto& result : results) EXPECT_TRUE(result.ok()) << result.error;
  EXPECT_GE(wall, 1.2);  // four answers of 0.3 s, one after the other
  // Waiting costs next to nothing; the spin cost 0.2-0.4 s of CPU here.
  EXPECT_LT(cpu, 0.1) << "the transfer thread kept the CPU busy while it waited (" << wall << " s)";
}

TEST(PackageDownloader, DownloadsManyFilesInParallelAndHashesThem) {
  TempDirectory scratch;
  TestHttpServer server(scratch / "served");
  std::vector<DownloadRequest> requests;
  std::vector<std::string> contents;
  for (unsigned i = 0; i < 12; ++i) {
    contents.push_back(random_bytes(100000 + i * 7919, i));
    const auto name = "pkg" + std::to_string(i) + ".conda";
    write(scratch / "served" / name, contents.back());
    DownloadRequest request;
    request.url = server.url("/" + name);
    request.destination = scratch / "out" / name;
    request.want_md5 = true;
    request.expected_size = contents.back().size();
    requests.push_back(request);
  }
  std::filesystem::create_directories(scratch / "out");
  const auto results = download_all(requests);
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].error;
    EXPECT_EQ(results[i].http_status, 200);
    EXPECT_EQ(results[i].digests.sha256, sha256_hex(contents[i]));
    EXPECT_EQ(results[i].digests.size, contents[i].size());
    StreamingHash md5(HashAlgorithm::md5);
    md5.update(contents[i]);
    EXPECT_EQ(results[i].digests.md5, md5.finish_hex());
    EXPECT_EQ(hash_file(requests[i].destination, true, false).sha256, results[i].digests.sha256);
  }
}

// The body is gathered into large writes: files of several writes, of
// exactly one, and with a tail arrive whole.
TEST(PackageDownloader, FilesLargerThanOneWriteArriveWhole) {
  TempDirectory scratch;
  TestHttpServer server(scratch / "served");
  std::vector<DownloadRequest> requests;
  std::vector<std::string> contents;
  for (const std::size_t size : {std::size_t{3 * 262144 + 12345}, std::size_t{262144}, std::size_t{5 << 20}}) {
    contents.push_back(random_bytes(size, static_cast<unsigned>(size)));
    const auto name = "big" + std::to_string(size) + ".conda";
    write(scratch / "served" / name, contents.back());
    requests.push_back(request_for(server.url("/" + name), scratch / "out" / name));
  }
  std::filesystem::create_directories(scratch / "out");
  const auto results = download_all(requests);
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].error;
    EXPECT_EQ(results[i].digests.sha256, sha256_hex(contents[i]));
    EXPECT_EQ(hash_file(requests[i].destination, true, false).sha256, sha256_hex(contents[i]));
    EXPECT_EQ(std::filesystem::file_size(requests[i].destination), contents[i].size());
  }
  // The local copy reads in 1 MiB pieces: written as they come, tail included.
  const auto local = copy_local_package(
      request_for("file://" + (scratch / "served" / "big5242880.conda").string(), scratch / "copy.conda"));
  ASSERT_TRUE(local.ok()) << local.error;
  EXPECT_EQ(hash_file(scratch / "copy.conda", true, false).sha256, sha256_hex(contents[2]));
}

TEST(PackageDownloader, RetriesATruncatedTransfer) {
  TempDirectory scratch;
  TestHttpServer server(scratch / "served");
  const auto content = random_bytes(300000, 7);
  write(scratch / "served/pkg.conda", content);
  server.fault("/pkg.conda", {{"kind", "truncate"}, {"times", 1}});
  auto request = request_for(server.url("/pkg.conda"), scratch / "pkg.conda");
  const auto results = download_all({request}, with_retries(2));
  ASSERT_TRUE(results[0].ok()) << results[0].error;
  EXPECT_EQ(results[0].digests.sha256, sha256_hex(content));
  EXPECT_EQ(server.requests_for("/pkg.conda").size(), 2u);
}

TEST(PackageDownloader, GivesUpOnServerErrorsAfterItsRetries) {
  TempDirectory scratch;
  TestHttpServer server(scratch / "served");
  write(scratch / "served/pkg.conda", "x");
  server.fail_with_status("/pkg.conda", 503, -1);
  auto request = request_for(server.url("/pkg.conda"), scratch / "pkg.conda");
  const auto results =
      download_all({request}, with_retries(2));
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].error.find("HTTP 503"), std::string::npos) << results[0].error;
  EXPECT_NE(results[0].error.find(request.url), std::string::npos) << results[0].error;
  EXPECT_EQ(server.requests_for("/pkg.conda").size(), 3u);
}

TEST(PackageDownloader, ReportsAMissingFileWithoutRetrying) {
  TempDirectory scratch;
  TestHttpServer server(scratch / "served");
  std::filesystem::create_directories(scratch / "served");
  auto request = request_for(server.url("/missing.conda"), scratch / "missing.conda");
  const auto results = download_all({request});
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].error.find("HTTP 404"), std::string::npos) << results[0].error;
  EXPECT_NE(results[0].error.find("stale"), std::string::npos) << results[0].error;
  EXPECT_EQ(server.requests_for("/missing.conda").size(), 1u);
}

TEST(PackageDownloader, CutsOffABodyLargerThanAnnounced) {
  TempDirectory scratch;
  TestHttpServer server(scratch / "served");
  write(scratch / "served/pkg.conda", random_bytes(200000, 3));
  auto request = request_for(server.url("/pkg.conda"), scratch / "pkg.conda");
  request.expected_size = 1000;
  const auto results = download_all({request});
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].error.find("1000 bytes"), std::string::npos) << results[0].error;
}

TEST(PackageDownloader, ReportsAConnectionRefused) {
  TempDirectory scratch;
  // Port 9 (discard) on loopback: nothing listens there in a test machine.
  auto request = request_for("http://127.0.0.1:9/pkg.conda", scratch / "pkg.conda");
  const auto results = download_all({request}, with_retries(0));
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].error.find("http://127.0.0.1:9/pkg.conda"), std::string::npos);
}

// Issue 9: a redirect loop made 4,435 requests in 1.3 s before libcurl's
// header cap stopped it.
TEST(PackageDownloader, StopsARedirectLoopAtTheLimit) {
  TempDirectory scratch;
  TestHttpServer server(scratch / "served");
  std::filesystem::create_directories(scratch / "served");
  server.redirect("/loop.conda", "/loop.conda");
  auto request = request_for(server.url("/loop.conda"), scratch / "loop.conda");
  const auto results = download_all({request}, with_retries(2));
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].error.find("redirected more than 10 times"), std::string::npos) << results[0].error;
  EXPECT_NE(results[0].error.find(request.url), std::string::npos) << results[0].error;
  EXPECT_LE(server.requests_for("/loop.conda").size(), 11u);
}

TEST(PackageDownloader, RefusesARedirectToAFileUrl) {
  TempDirectory scratch;
  TestHttpServer server(scratch / "served");
  write(scratch / "secret", "the content of a local file");
  server.redirect("/pkg.conda", "file://" + (scratch / "secret").string());
  auto request = request_for(server.url("/pkg.conda"), scratch / "pkg.conda");
  const auto results = download_all({request});
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].error.find("only to http:// and https://"), std::string::npos) << results[0].error;
  EXPECT_EQ(std::filesystem::file_size(scratch / "pkg.conda"), 0u);
}

TEST(PackageDownloader, SendsAPrivateChannelsTokenAndPasswordToItsOrigin) {
  TempDirectory scratch;
  TestHttpServer token_server(scratch / "served");
  TestHttpServer basic_server(scratch / "served");
  const auto content = random_bytes(1000, 5);
  write(scratch / "served/chan/noarch/pkg.conda", content);
  token_server.require_token("tk-123");
  basic_server.require_basic_auth("user:secret");
  DownloaderOptions options;
  options.channel_credentials = {{token_server.url("/chan"), "", "tk-123"},
                                 {basic_server.url("/chan"), "user:secret", ""}};
  const auto results = download_all({request_for(token_server.url("/chan/noarch/pkg.conda"), scratch / "a.conda"),
                                     request_for(basic_server.url("/chan/noarch/pkg.conda"), scratch / "b.conda")},
                                    options);
  ASSERT_TRUE(results[0].ok()) << results[0].error;
  ASSERT_TRUE(results[1].ok()) << results[1].error;
  EXPECT_EQ(results[0].digests.sha256, sha256_hex(content));
  EXPECT_EQ(token_server.requests_for("/t/tk-123/chan/noarch/pkg.conda").size(), 1u);
  EXPECT_EQ(basic_server.requests()[0].authorization, "Basic dXNlcjpzZWNyZXQ=");
}

TEST(PackageDownloader, ARedirectToAnotherOriginCarriesNoCredentials) {
  TempDirectory scratch;
  TestHttpServer channel_server(scratch / "served");
  TestHttpServer other_server(scratch / "served");  // another port: another origin
  write(scratch / "served/elsewhere/pkg.conda", "package");
  channel_server.require_basic_auth("user:secret");
  channel_server.require_token("tk-1");
  channel_server.redirect("/chan/noarch/pkg.conda", other_server.url("/elsewhere/pkg.conda"));
  DownloaderOptions options;
  options.channel_credentials = {{channel_server.url("/chan"), "user:secret", "tk-1"}};
  const auto results =
      download_all({request_for(channel_server.url("/chan/noarch/pkg.conda"), scratch / "pkg.conda")}, options);
  ASSERT_TRUE(results[0].ok()) << results[0].error;
  ASSERT_EQ(other_server.requests().size(), 1u);
  EXPECT_EQ(other_server.requests()[0].authorization, "");
  EXPECT_EQ(other_server.requests()[0].path, "/elsewhere/pkg.conda");
  // The error of a failed download names the URL without its secrets.
  channel_server.clear();
  const auto failed =
      download_all({request_for(channel_server.url("/chan/noarch/gone.conda"), scratch / "gone.conda")}, options);
  ASSERT_FALSE(failed[0].ok());
  EXPECT_EQ(failed[0].error.find("secret"), std::string::npos) << failed[0].error;
  EXPECT_EQ(failed[0].error.find("tk-1"), std::string::npos) << failed[0].error;
}

// The downloader's transfers get the same TLS setup as the repodata fetch
// (net::configure_transfer): refused until the CA is trusted, and a TLS
// failure is not retried.
TEST(PackageDownloader, DownloadsOverHttpsOnlyFromATrustedServer) {
  TempDirectory scratch;
  const auto certificates = testing::make_test_certificates(scratch / "pki");
  TestHttpServer server(scratch / "served", certificates.server());
  const auto content = random_bytes(20000, 3);
  write(scratch / "served/pkg.conda", content);
  const auto refused = download_all({request_for(server.url("/pkg.conda"), scratch / "a.conda")}, with_retries(2));
  ASSERT_FALSE(refused[0].ok());
  EXPECT_NE(refused[0].error.find("ssl_verify"), std::string::npos) << refused[0].error;
  EXPECT_EQ(refused[0].error.find("attempts"), std::string::npos) << refused[0].error;

  auto options = with_retries(2);
  options.client.tls.ca_bundle = certificates.ca.string();
  const auto trusted = download_all({request_for(server.url("/pkg.conda"), scratch / "b.conda")}, options);
  ASSERT_TRUE(trusted[0].ok()) << trusted[0].error;
  EXPECT_EQ(trusted[0].digests.sha256, sha256_hex(content));
}

TEST(PackageLocalCopy, CopiesAndHashes) {
  TempDirectory scratch;
  const auto content = random_bytes(50000, 11);
  write(scratch / "chan dir/pkg.conda", content);
  auto request = request_for("file://" + (scratch / "chan%20dir/pkg.conda").string(), scratch / "copy.conda");
  request.want_md5 = true;
  const auto result = copy_local_package(request);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.digests.sha256, sha256_hex(content));
  EXPECT_EQ(hash_file(scratch / "copy.conda", true, false).sha256, sha256_hex(content));
  request.expected_size = 10;
  EXPECT_FALSE(copy_local_package(request).ok());
}

// conda's url_to_path: file://localhost/x is the local /x; another host is a
// network share a POSIX path cannot name, refused with what to write instead.
TEST(PackageLocalCopy, ReadsFileLocalhostAndRefusesOtherHosts) {
  TempDirectory scratch;
  const auto content = random_bytes(1000, 12);
  write(scratch / "chan/pkg.conda", content);
  const auto local = copy_local_package(
      request_for("file://localhost" + (scratch / "chan/pkg.conda").string(), scratch / "a.conda"));
  ASSERT_TRUE(local.ok()) << local.error;
  EXPECT_EQ(local.digests.sha256, sha256_hex(content));
  // Before: read as the relative path "fileserver/<scratch>/chan/pkg.conda".
  const auto remote = copy_local_package(
      request_for("file://fileserver" + (scratch / "chan/pkg.conda").string(), scratch / "b.conda"));
  ASSERT_FALSE(remote.ok());
  EXPECT_NE(remote.error.find("names the host 'fileserver', which is not this machine"), std::string::npos)
      << remote.error;
  EXPECT_NE(remote.error.find("file:///absolute/path"), std::string::npos) << remote.error;
}

}  // namespace
}  // namespace gpuenv::package
