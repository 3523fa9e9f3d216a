// Channels as a user names them, loaded into a PackageDatabase: the
// repodata gateway (repodata::fetch_channels) brings each subdir's
// repodata.json to disk (for a subdir with shards, CEP 16, only the records
// the request can reach), then its records are parsed or read from the .solv
// cache -- only those the request can reach, through per-name indexes --
// and ranked in the order given (the first channel is the most preferred).
#pragma once

#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/net/client_settings.hpp"
#include "gpuenv/repodata/channel_gateway.hpp"
#include "gpuenv/repodata/fetch_observer.hpp"
#include "gpuenv/solver/package_database.hpp"
#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::solver {

struct ChannelLoadOptions {
  std::vector<std::string> channels;  // as the user wrote them, most preferred first
  specs::ChannelContext context;
  std::string platform;  // the subdir solved for ("linux-64"); noarch is always added
  // gpuenv's cache directory: repodata/ and solv/ are kept under it. Empty:
  // no caching (local channels still load; remote ones cannot be fetched).
  std::filesystem::path cache_dir;
  bool offline = false;
  repodata::FetchObserver* fetch_observer = nullptr;  // told about downloads; may be null
  net::ClientSettings client;  // TLS, proxies, timeouts for the repodata fetch
  // Load only the records these specs can reach (package_closure.hpp):
  // their names and, with follow_dependencies, everything those depend on.
  // The subdirs' per-name indexes (kept under cache_dir/solv) make that a
  // small load; the result of a solve is the same as with every record.
  // nullopt, or no cache_dir: every record.
  std::optional<std::vector<specs::MatchSpec>> reachable_from;
  // false: only the specs' own names (a search needs no dependencies).
  bool follow_dependencies = true;
  // The target prefix's package names: a solve may keep or update them
  // although the specs do not reach them. Sharded repodata (CEP 16) fetches
  // their closure too; indexes of whole subdirs have them anyway.
  std::vector<std::string> installed_names;
  // Load from the cache while the server is asked whether it is current
  // (repodata::GatewayRequest::revalidate_alongside); the answer is
  // ChannelLoadResult::revalidation.
  bool revalidate_alongside = false;
};

struct LoadedSubdir {
  ChannelSubdir source;
  LoadReport report;
};

struct ChannelLoadResult {
  std::vector<LoadedSubdir> subdirs;
  // The secrets of the channels given with a token or user:password@, for
  // the package downloads (records hold their URLs without them).
  std::vector<specs::ChannelCredentials> credentials;
  // Things a user may want to know that did not stop the load (skipped
  // records, a .solv cache that could not be written).
  std::vector<std::string> warnings;
  // Set when the records came from the cache under revalidate_alongside:
  // what was made from them stands only if still_current() says so.
  std::shared_ptr<repodata::IndexRevalidation> revalidation;
};

// Fails with a message naming the channel, the subdir and what to do when
// a channel cannot be resolved, fetched or parsed. A platform subdir a
// channel does not have is empty (as in conda); a channel without noarch
// is not a channel. fetch_for_loading() then load_fetched().
std::expected<ChannelLoadResult, std::string> load_channels(PackageDatabase& database,
                                                            const ChannelLoadOptions& options);

// load_channels' first half: each subdir's repodata on disk (downloaded, or
// read from the cache under revalidate_alongside); nothing in a database yet.
std::expected<repodata::FetchedChannels, std::string> fetch_for_loading(const ChannelLoadOptions& options);

// load_channels' second half: the records of what fetch_for_loading brought.
std::expected<ChannelLoadResult, std::string> load_fetched(PackageDatabase& database,
                                                           repodata::FetchedChannels fetched,
                                                           const ChannelLoadOptions& options);

// What load_fetched would add to a database is made of, as text: the
// options that choose the records and, per subdir, where its repodata is
// with the file's size, times and inode (what invalidates its per-name
// index, solv_cache.hpp). Equal texts load equal records. nullopt when the
// records cannot be named so: a load of every record (no reachable_from or
// no cache_dir), or a repodata file that cannot be stat'ed.
std::optional<std::string> loaded_records_identity(const repodata::FetchedChannels& fetched,
                                                   const ChannelLoadOptions& options);

// What load_fetched returns, for subdirs whose records are not loaded
// (a solve answered without them): their sources, the credentials and the
// revalidation; no reports, no warnings.
ChannelLoadResult result_without_records(repodata::FetchedChannels fetched);

}  // namespace gpuenv::solver
