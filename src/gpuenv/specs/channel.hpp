// conda channels: names, URLs and local paths resolved to base URLs
// (CEP 26 "Identifying channels", conda.models.channel).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// is_package_file_name and strip_package_extension, which channel parsing
// uses, came from here first; callers still find them through this header.
#include "gpuenv/specs/package_filename.hpp"
#include "gpuenv/specs/platform.hpp"

namespace gpuenv::specs {

// The configuration channel names are resolved with (conda's context values).
// A value passed in, never global: the CLI builds it from .condarc and the
// environment, tests build it by hand.
struct ChannelContext {
  // Where a bare name lives: "conda-forge" -> <channel_alias>/conda-forge.
  std::string channel_alias = "https://conda.anaconda.org";
  // The members of the `defaults` multichannel (conda's default_channels on
  // Linux and macOS; Windows adds https://repo.anaconda.com/pkgs/msys2).
  std::vector<std::string> default_channels = {"https://repo.anaconda.com/pkgs/main",
                                               "https://repo.anaconda.com/pkgs/r"};
  // conda's custom_channels: name -> the URL the name lives under, so
  // {"internal": "https://repo.corp"} makes "internal" https://repo.corp/internal.
  std::map<std::string, std::string> custom_channels;
  // conda's custom_multichannels: a name standing for several channels (each a
  // name, URL or path). `defaults` always means default_channels.
  std::map<std::string, std::vector<std::string>> custom_multichannels;
  // For `~` and relative paths. Left empty, such paths stay unexpanded in the
  // resulting file:// URL (the specs module does no I/O to find them).
  std::string home_directory;
  std::string current_directory;
};

class Channel {
 public:
  // Reads a channel as a user writes it:
  //   conda-forge, conda-forge/label/dev, pkgs/main, defaults   names
  //   https://conda.anaconda.org/conda-forge, s3://bucket/chan   URLs
  //   file:///srv/chan, /srv/chan, ./chan, ../chan, ~/chan, C:\chan   local
  // A trailing known subdir (".../linux-64") is split off into platform(), a
  // trailing package file (".../pkg-1.0-0.conda") into package_filename(), a
  // "/t/<token>" path segment into token(), "user:pass@" into credentials().
  // Throws SpecError (kind "channel") for text that is none of these.
  static Channel parse(std::string_view text, const ChannelContext& context = {});

  // conda's channel name: "conda-forge" for <alias>/conda-forge, "pkgs/main",
  // "defaults", the URL path for other hosts ("python/conda" for
  // https://host/python/conda), a local path as written.
  const std::string& name() const noexcept { return name_; }
  // conda's canonical_name: "defaults" for the default channels and the
  // multichannel itself, the name for channels under the alias or a custom
  // channel, the base URL otherwise.
  const std::string& canonical_name() const noexcept { return canonical_name_; }
  // The URL the subdirs live under, without credentials, token, subdir or a
  // trailing slash; for a multichannel, its first member's.
  const std::string& base_url() const noexcept { return base_urls_.front(); }
  // One base URL, or every member's for a multichannel.
  const std::vector<std::string>& base_urls() const noexcept { return base_urls_; }
  bool is_multichannel() const noexcept { return multichannel_; }
  bool is_local() const noexcept { return base_url().starts_with("file://"); }

  const std::optional<std::string>& platform() const noexcept { return platform_; }
  const std::string& package_filename() const noexcept { return package_filename_; }
  const std::string& token() const noexcept { return token_; }
  const std::string& credentials() const noexcept { return credentials_; }
  // The text this channel was read from, trimmed.
  const std::string& original() const noexcept { return original_; }

  // <base_url>/<subdir>, e.g. https://conda.anaconda.org/conda-forge/linux-64.
  std::string url_for(std::string_view subdir) const;
  std::string url_for(Platform platform) const { return url_for(platform.str()); }
  // One URL per member (a single one for a plain channel).
  std::vector<std::string> urls_for(std::string_view subdir) const;
  // Like url_for, with the token and credentials put back, for fetching.
  std::string authenticated_url_for(std::string_view subdir) const;

  // Whether a package record whose `channel` field holds `record_channel` (a
  // name, or a URL with or without subdir) comes from this channel. conda's
  // ChannelMatch: `defaults` contains pkgs/main's packages, not the reverse.
  bool contains_record_channel(std::string_view record_channel) const;

  friend bool operator==(const Channel& a, const Channel& b) noexcept {
    return a.base_urls_ == b.base_urls_ && a.platform_ == b.platform_ &&
           a.package_filename_ == b.package_filename_;
  }

 private:
  std::string original_;
  std::string name_;
  std::string canonical_name_;
  std::vector<std::string> base_urls_;
  std::vector<std::string> member_names_;  // names a record may carry for this channel
  std::optional<std::string> platform_;
  std::string package_filename_;
  std::string token_;
  std::string credentials_;
  bool multichannel_ = false;

  friend class ChannelResolver;
};

// --- helpers shared with MatchSpec parsing ------------------------------------

// "scheme://..." with a scheme of letters, digits, '+', '-', '.'.
bool has_url_scheme(std::string_view text) noexcept;
// A path by CEP 26's rules: `/x`, `./x`, `../x`, `~/x`, `\x`, `C:\x`, `C:/x`.
bool looks_like_path(std::string_view text) noexcept;
// A local path as a file:// URL: `~` and relative paths resolved with the
// context's directories when known, backslashes turned into slashes, Windows
// drives as file:///C:/... . Characters are not percent-encoded (conda
// unquotes the URLs it builds from paths too).
std::string path_to_file_url(std::string_view path, const ChannelContext& context);
// %XX decoding (file:// URLs name files by their decoded path).
std::string percent_decode(std::string_view text);

}  // namespace gpuenv::specs
