// libcurl, loaded when the first transfer needs it instead of at start-up.
//
// Debian's libcurl pulls in ~38 shared libraries (gnutls through librtmp,
// kerberos, ldap, ...) whose load-time initialisation costs ~3.5 ms on every
// start, which alone breaks the 5 ms budget of a warm `gpuenv info` that never
// touches the network. The executables therefore do not link libcurl: the
// repodata and package modules call the libcurl API as usual, and these
// definitions forward each call to libcurl.so.4, dlopen'ed on first use.
// Only the functions gpuenv calls are here; a new one fails at link time.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace {

void* curl_library() {
  static void* const handle = [] {
    void* h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      std::fprintf(stderr,
                   "gpuenv: error: cannot load libcurl.so.4 (%s); it is needed for downloads: "
                   "install Debian's libcurl4 package\n",
                   dlerror());
    }
    return h;
  }();
  return handle;
}

// The address of `name` in libcurl; aborts with a message when libcurl is
// missing, since no caller can do anything sensible without it.
template <typename Function>
Function resolve(const char* name) {
  void* library = curl_library();
  void* symbol = library == nullptr ? nullptr : dlsym(library, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "gpuenv: error: libcurl.so.4 has no %s\n", name);
    std::abort();
  }
  return reinterpret_cast<Function>(symbol);
}

#define GPUENV_CURL_FORWARD(name) \
  static const auto real = resolve<decltype(&::name)>(#name)

}  // namespace

extern "C" {

CURLcode curl_global_init(long flags) {
  if (curl_library() == nullptr) return CURLE_FAILED_INIT;
  GPUENV_CURL_FORWARD(curl_global_init);
  return real(flags);
}

CURL* curl_easy_init(void) {
  GPUENV_CURL_FORWARD(curl_easy_init);
  return real();
}

// Every option value libcurl takes (long, pointer, function pointer,
// curl_off_t) is one 64-bit integer-class argument on the LP64 ABIs gpuenv
// supports, so it is forwarded as one.
static_assert(sizeof(long) == sizeof(void*) && sizeof(curl_off_t) == sizeof(void*));

CURLcode curl_easy_setopt(CURL* curl, CURLoption option, ...) {
  GPUENV_CURL_FORWARD(curl_easy_setopt);
  va_list args;
  va_start(args, option);
  void* value = va_arg(args, void*);
  va_end(args);
  return real(curl, option, value);
}

CURLcode curl_easy_getinfo(CURL* curl, CURLINFO info, ...) {
  GPUENV_CURL_FORWARD(curl_easy_getinfo);
  va_list args;
  va_start(args, info);
  void* out = va_arg(args, void*);
  va_end(args);
  return real(curl, info, out);
}

void curl_easy_cleanup(CURL* curl) {
  GPUENV_CURL_FORWARD(curl_easy_cleanup);
  real(curl);
}

const char* curl_easy_strerror(CURLcode code) {
  GPUENV_CURL_FORWARD(curl_easy_strerror);
  return real(code);
}

CURLHcode curl_easy_header(CURL* easy, const char* name, size_t index, unsigned int origin,
                           int request, struct curl_header** hout) {
  GPUENV_CURL_FORWARD(curl_easy_header);
  return real(easy, name, index, origin, request, hout);
}

CURLM* curl_multi_init(void) {
  GPUENV_CURL_FORWARD(curl_multi_init);
  return real();
}

CURLMcode curl_multi_setopt(CURLM* multi, CURLMoption option, ...) {
  GPUENV_CURL_FORWARD(curl_multi_setopt);
  va_list args;
  va_start(args, option);
  void* value = va_arg(args, void*);
  va_end(args);
  return real(multi, option, value);
}

CURLMcode curl_multi_add_handle(CURLM* multi, CURL* easy) {
  GPUENV_CURL_FORWARD(curl_multi_add_handle);
  return real(multi, easy);
}

CURLMcode curl_multi_remove_handle(CURLM* multi, CURL* easy) {
  GPUENV_CURL_FORWARD(curl_multi_remove_handle);
  return real(multi, easy);
}

CURLMcode curl_multi_perform(CURLM* multi, int* running) {
  GPUENV_CURL_FORWARD(curl_multi_perform);
  return real(multi, running);
}

CURLMcode curl_multi_poll(CURLM* multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds,
                          int timeout_ms, int* ret) {
  GPUENV_CURL_FORWARD(curl_multi_poll);
  return real(multi, extra_fds, extra_nfds, timeout_ms, ret);
}

CURLMcode curl_multi_wakeup(CURLM* multi) {
  GPUENV_CURL_FORWARD(curl_multi_wakeup);
  return real(multi);
}

CURLMsg* curl_multi_info_read(CURLM* multi, int* msgs_in_queue) {
  GPUENV_CURL_FORWARD(curl_multi_info_read);
  return real(multi, msgs_in_queue);
}

CURLMcode curl_multi_cleanup(CURLM* multi) {
  GPUENV_CURL_FORWARD(curl_multi_cleanup);
  return real(multi);
}

struct curl_slist* curl_slist_append(struct curl_slist* list, const char* text) {
  GPUENV_CURL_FORWARD(curl_slist_append);
  return real(list, text);
}

void curl_slist_free_all(struct curl_slist* list) {
  GPUENV_CURL_FORWARD(curl_slist_free_all);
  real(list);
}

CURLSH* curl_share_init(void) {
  GPUENV_CURL_FORWARD(curl_share_init);
  return real();
}

CURLSHcode curl_share_setopt(CURLSH* share, CURLSHoption option, ...) {
  GPUENV_CURL_FORWARD(curl_share_setopt);
  va_list args;
  va_start(args, option);
  void* value = va_arg(args, void*);
  va_end(args);
  return real(share, option, value);
}

CURLSHcode curl_share_cleanup(CURLSH* share) {
  GPUENV_CURL_FORWARD(curl_share_cleanup);
  return real(share);
}

}  // extern "C"
