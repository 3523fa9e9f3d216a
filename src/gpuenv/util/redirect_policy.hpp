// How gpuenv's HTTP transfers follow redirects, repodata and packages alike:
// a hostile or broken server must not keep a transfer going round a loop,
// nor send it to file:// (or any scheme other than http and https), nor get
// a private channel's credentials sent on to another host.
#pragma once

#include <string>

namespace gpuenv::util {

inline constexpr long max_redirects = 10;

// Sets up a libcurl easy handle (a CURL*, passed as void* so this header needs
// no curl.h): follow at most max_redirects redirects, only to http:// and
// https:// URLs, and only those two schemes for the first URL too. libcurl
// sends credentials only to the first request's host, port and scheme as long
// as CURLOPT_UNRESTRICTED_AUTH stays off, which it does here.
void follow_redirects_safely(void* curl_easy);

// What a transfer ended by `curl_code` (a CURLcode) did wrong, in words, when
// the code is one of the refusals above; empty for any other code.
std::string redirect_failure(int curl_code);

}  // namespace gpuenv::util
