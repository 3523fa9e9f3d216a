// A private channel's secrets go only to its own origin, and are masked in
// everything gpuenv shows or writes.
#include <gtest/gtest.h>

#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::specs {
namespace {

const std::vector<ChannelCredentials> private_channels = {
    {"https://repo.example/private", "user:secret", ""},
    {"https://repo.example/other", "", "tk-123"},
    {"http://127.0.0.1:8000/chan", "", "tk-456"},
};

TEST(ChannelCredentials, GoToTheChannelsOwnPackages) {
  EXPECT_EQ(with_channel_credentials("https://repo.example/private/linux-64/a-1-0.conda", private_channels),
            "https://user:secret@repo.example/private/linux-64/a-1-0.conda");
  EXPECT_EQ(with_channel_credentials("https://repo.example/other/noarch/a-1-0.conda", private_channels),
            "https://repo.example/t/tk-123/other/noarch/a-1-0.conda");
  EXPECT_EQ(with_channel_credentials("http://127.0.0.1:8000/chan/noarch/a-1-0.conda", private_channels),
            "http://127.0.0.1:8000/t/tk-456/chan/noarch/a-1-0.conda");
  // The same origin spelled otherwise.
  EXPECT_EQ(with_channel_credentials("HTTPS://Repo.Example:443/private/x.conda", private_channels),
            "HTTPS://user:secret@Repo.Example:443/private/x.conda");
}

TEST(ChannelCredentials, OnTheSameOriginOutsideAnyChannelTheFirstChannelsAreUsed) {
  // A base_url (CEP 15) on the channel's own server.
  EXPECT_EQ(with_channel_credentials("https://repo.example/pool/a-1-0.conda", private_channels),
            "https://user:secret@repo.example/pool/a-1-0.conda");
  // "/private2" is not under "/private".
  EXPECT_EQ(with_channel_credentials("https://repo.example/private2/a-1-0.conda", {private_channels[1],
                                                                                  private_channels[0]}),
            "https://repo.example/t/tk-123/private2/a-1-0.conda");
}

TEST(ChannelCredentials, NeverGoToAnotherOrigin) {
  for (const std::string url : {"https://cdn.example/private/linux-64/a-1-0.conda",
                                "http://repo.example/private/linux-64/a-1-0.conda",
                                "https://repo.example:8443/private/linux-64/a-1-0.conda",
                                "http://127.0.0.1:8001/chan/noarch/a-1-0.conda",
                                "https://repo.example.evil.com/private/a-1-0.conda",
                                "file:///srv/private/a-1-0.conda"}) {
    EXPECT_EQ(with_channel_credentials(url, private_channels), url);
  }
}

TEST(ChannelCredentials, AUrlWithItsOwnCredentialsKeepsThem) {
  EXPECT_EQ(with_channel_credentials("https://me:pw@repo.example/private/a.conda", private_channels),
            "https://me:pw@repo.example/private/a.conda");
  EXPECT_EQ(with_channel_credentials("https://repo.example/t/mine/private/a.conda", private_channels),
            "https://repo.example/t/mine/private/a.conda");
}

TEST(MaskCredentials, MasksAsCondaDoes) {
  EXPECT_EQ(mask_credentials("https://user:secret@repo.example/private/linux-64/"),
            "https://repo.example/private/linux-64/");
  EXPECT_EQ(mask_credentials("https://conda.anaconda.org/t/tk-123-456/chan/noarch/a-1-0.conda"),
            "https://conda.anaconda.org/t/<TOKEN>/chan/noarch/a-1-0.conda");
  EXPECT_EQ(mask_credentials("https://u:p@host:8080/t/tk/chan"), "https://host:8080/t/<TOKEN>/chan");
  EXPECT_EQ(mask_credentials("https://host/api/t/tk-1/chan"), "https://host/api/t/<TOKEN>/chan");
  EXPECT_EQ(mask_credentials("https://host/chan/linux-64/"), "https://host/chan/linux-64/");
  EXPECT_EQ(mask_credentials("https://user@host/a@b/"), "https://host/a@b/");
}

// Tokens are a server's; a local channel under a directory named `t` keeps
// its path (conda-meta's url must still name the file).
TEST(MaskCredentials, LeavesLocalUrlsAlone) {
  EXPECT_EQ(mask_credentials("file:///home/me/t/chan/linux-64/x-1-0.conda"),
            "file:///home/me/t/chan/linux-64/x-1-0.conda");
  EXPECT_EQ(mask_credentials("channel FILE:///srv/t/c/ and https://h/t/tk/c"),
            "channel FILE:///srv/t/c/ and https://h/t/<TOKEN>/c");
}

TEST(MaskCredentials, MasksEveryUrlInAText) {
  EXPECT_EQ(mask_credentials("/usr/bin/gpuenv create -c https://u:p@h/t/tk/c --channel=http://h2/t/x-1/d "
                             "'https://u:p@h3/e::numpy' /home/t/abc/ -n t"),
            "/usr/bin/gpuenv create -c https://h/t/<TOKEN>/c --channel=http://h2/t/<TOKEN>/d "
            "'https://h3/e::numpy' /home/t/abc/ -n t");
  EXPECT_EQ(mask_credentials("downloading https://h/t/tk-9/c/x.conda failed (channel https://h/t/tk-9)"),
            "downloading https://h/t/<TOKEN>/c/x.conda failed (channel https://h/t/<TOKEN>)");
  EXPECT_EQ(mask_credentials("no url here: a://"), "no url here: a://");
  EXPECT_EQ(mask_credentials(""), "");
}

}  // namespace
}  // namespace gpuenv::specs
