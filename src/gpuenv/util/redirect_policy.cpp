#include "gpuenv/util/redirect_policy.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

namespace gpuenv::util {

void follow_redirects_safely(void* curl_easy) {
  CURL* easy = curl_easy;
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(easy, CURLOPT_MAXREDIRS, max_redirects);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_UNRESTRICTED_AUTH, 0L);
}

std::string redirect_failure(int curl_code) {
  switch (static_cast<CURLcode>(curl_code)) {
    case CURLE_TOO_MANY_REDIRECTS:
      return fmt::format("the server redirected more than {} times (a redirect loop); check the URL, or tell "
                         "the channel's maintainers",
                         max_redirects);
    case CURLE_UNSUPPORTED_PROTOCOL:
      return "the URL, or a redirect the server answered with, is not http:// or https://: gpuenv downloads "
             "over, and follows redirects only to http:// and https://";
    default:
      return {};
  }
}

}  // namespace gpuenv::util
