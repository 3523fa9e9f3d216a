// The repodata gateway: channels as a user names them, resolved to their
// subdirs for the target platform plus noarch (each member of a multichannel
// such as `defaults` on its own, ranked in the order given), and each
// subdir's repodata.json brought to local disk -- fetched over HTTP(S)
// through the cache, or read in place from a local channel. What a solver
// or a search loads from, and nothing about loading itself.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/repodata/fetch_observer.hpp"
#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::repodata {

// Where one repo's records come from: one subdir of one channel.
struct ChannelSubdir {
  // The channel's base URL ("https://conda.anaconda.org/conda-forge",
  // "file:///srv/channel"): what records report as their channel and what
  // channel-qualified specs (`conda-forge::numpy`) are matched against.
  std::string channel_url;
  // The name users know it by ("conda-forge"), for output.
  std::string channel_name;
  std::string subdir;  // "linux-64", "noarch"
  // The subdir's URL ending in '/': packages live here unless the
  // repodata's info.base_url says otherwise (CEP 15).
  std::string subdir_url;
  // The channel's place in the user's channel list: 0 is the first, most
  // preferred one. Subdirs of one channel share their rank.
  int channel_rank = 0;
};

// Asks for sharded repodata (CEP 16) where a subdir has it: only the
// records these names can reach are fetched (sharded_fetch.hpp).
struct ShardedClosureRequest {
  std::vector<std::string> root_names;
  bool follow_dependencies = true;
  // The package a dependency string names; nullopt for a pattern.
  std::function<std::optional<std::string>(std::string_view)> dependency_name;
};

// The server's answer to a revalidation that runs while the caller works
// from cached data (GatewayRequest::revalidate_alongside).
class IndexRevalidation {
 public:
  virtual ~IndexRevalidation() = default;
  // Waits for the answers. true: every shard index the data came from is
  // still current (fresh, or a 304; recorded in the cache). false: one has
  // changed or could not be asked; fetch again without revalidate_alongside,
  // which downloads what changed and reports any error.
  virtual bool still_current() = 0;
};

struct GatewayRequest {
  std::vector<std::string> channels;  // as the user wrote them, most preferred first
  specs::ChannelContext context;
  std::string platform;  // the subdir solved for ("linux-64"); noarch is always added
  // Where fetched repodata is cached; empty: remote channels cannot be fetched.
  std::filesystem::path cache_dir;
  bool offline = false;
  FetchObserver* observer = nullptr;  // told about downloads; may be null
  net::ClientSettings client;  // TLS, proxies, timeouts
  // Set (and a cache_dir given): subdirs with shards deliver only the
  // closure's records; the others their whole repodata.json.
  std::optional<ShardedClosureRequest> shards;
  // With shards, and every remote subdir's shard index cached: deliver the
  // data from the cache at once (as offline) and ask the server whether the
  // indexes are current in the background (FetchedChannels::revalidation),
  // so that a warm run's round trip overlaps loading and solving instead of
  // preceding them. Otherwise (or when the cache cannot serve the request)
  // the ordinary fetch.
  bool revalidate_alongside = false;
  // FetchOptions::on_json_download, for the subdirs fetched whole.
  std::function<void(const JsonDownload&)> on_json_download;
};

// A subdir whose repodata.json is on local disk.
struct FetchedSubdir {
  ChannelSubdir source;
  std::filesystem::path json;
  std::string label;  // the URL it came from (secrets masked), or its path
  bool sharded = false;  // `json` holds only the records the request can reach
  // The solver's index of `json` was built while it downloaded (set by the
  // solver's loader, not by the fetch).
  bool index_built_alongside = false;
};

struct FetchedChannels {
  std::vector<FetchedSubdir> subdirs;  // in rank order; a platform subdir a channel lacks is left out
  // The secrets of the channels given with a token or user:password@, for
  // the package downloads (records hold their URLs without them).
  std::vector<specs::ChannelCredentials> credentials;
  // Set when the data came from the cache under revalidate_alongside: ask it
  // before trusting anything made from the data.
  std::shared_ptr<IndexRevalidation> revalidation;
};

// Fails with a message naming the channel, the subdir and what to do when a
// channel cannot be resolved or fetched. A platform subdir a channel does
// not have is empty (as in conda); a channel without noarch is not a channel.
std::expected<FetchedChannels, std::string> fetch_channels(const GatewayRequest& request);

}  // namespace gpuenv::repodata
