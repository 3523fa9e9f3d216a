// The secrets a private channel's URL carries ("user:password@" for Basic
// auth, an anaconda.org-style "/t/<token>" path segment): putting them on the
// requests that go to the channel's own server, and masking them wherever a
// URL is shown or stored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::specs {

// One private channel's secrets, as `-c https://user:password@host/t/<token>/chan`
// gives them.
struct ChannelCredentials {
  std::string base_url;       // the channel's base URL without them: "https://host/chan"
  std::string user_password;  // "user:password" (sent as Basic auth), or empty
  std::string token;          // the "/t/<token>" segment's token, or empty
};

// `url` with the secrets of the channel it belongs to put in. Only a URL with
// the channel's origin (scheme, host and port) gets them: a package the
// repodata's base_url places on another host (a CDN, a mirror) never sees
// them. When several channels share the origin, the one whose base URL is the
// longest prefix of `url` is used, else the first listed. A URL that already
// carries credentials or a token is returned as it is.
std::string with_channel_credentials(std::string_view url, const std::vector<ChannelCredentials>& channels);

// `text` with the secrets of every URL in it masked as conda masks them in
// conda-meta records (remove_auth + mask_anaconda_token): "user:password@"
// dropped, "/t/<token>" written "/t/<TOKEN>". For every message, log line,
// --json output, conda-meta record and history line that may hold a URL.
std::string mask_credentials(std::string_view text);

}  // namespace gpuenv::specs
