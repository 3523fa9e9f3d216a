#include "gpuenv/net/connection_share.hpp"

#include <curl/curl.h>

#include <stdexcept>

#include "gpuenv/net/transfer_policy.hpp"

namespace gpuenv::net {
namespace {

void lock_shared(CURL*, curl_lock_data data, curl_lock_access, void* share) {
  static_cast<ConnectionShare*>(share)->lock_for(data).lock();
}

void unlock_shared(CURL*, curl_lock_data data, void* share) {
  static_cast<ConnectionShare*>(share)->lock_for(data).unlock();
}

}  // namespace

ConnectionShare::ConnectionShare() = default;

void* ConnectionShare::handle() {
  std::call_once(made_, [this] {
    initialise_libcurl_once();
    CURLSH* share = curl_share_init();
    if (share == nullptr) throw std::runtime_error("libcurl could not create a share handle");
    curl_share_setopt(share, CURLSHOPT_USERDATA, this);
    curl_share_setopt(share, CURLSHOPT_LOCKFUNC, &lock_shared);
    curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, &unlock_shared);
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    share_ = share;
  });
  return share_;
}

ConnectionShare::~ConnectionShare() {
  if (share_ != nullptr) curl_share_cleanup(static_cast<CURLSH*>(share_));
}

}  // namespace gpuenv::net
