// The messages of failed fetches. Each names the URL and the channel, says
// what went wrong, and what the user can do about it.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "gpuenv/repodata/body_writer.hpp"
#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/net/http_client.hpp"

namespace gpuenv::repodata {

// Identifies the subdir a message is about.
struct FetchSubject {
  std::string url;      // the URL (or path) that failed
  std::string channel;  // display name
  std::string subdir;   // "linux-64"
};

// "HTTP 404 Not Found", "HTTP 599".
std::string describe_status(long status);

FetchError status_error(const FetchSubject& subject, const net::HttpResponse& response, int attempts);
FetchError transport_error(const FetchSubject& subject, const net::HttpResponse& response, int attempts,
                           std::chrono::seconds stall_timeout);
FetchError invalid_body_error(const FetchSubject& subject, const BodyProblem& problem,
                              bool kept_cached_copy);
FetchError cache_error(const FetchSubject& subject, const std::filesystem::path& cache_dir,
                       const std::string& why);
FetchError not_cached_error(const FetchSubject& subject, const std::filesystem::path& cache_dir);
FetchError local_missing_error(const FetchSubject& subject, const std::filesystem::path& dir);

}  // namespace gpuenv::repodata
