// Loading the channels a request names into a solver database, the one way
// plan() and search() both do it: the settings' channels (and a file's, and
// those the specs name), only the records the specs can reach.
#pragma once

#include <expected>
#include <string>
#include <vector>

#include "gpuenv/environment/error.hpp"
#include "gpuenv/environment/reporter.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/solver/channel_loader.hpp"
#include "gpuenv/solver/package_database.hpp"

namespace gpuenv::environment {

// When the server is asked whether cached repodata is current.
enum class Revalidation {
  before_loading,      // then load (a search)
  alongside_solving,   // load from the cache at once; the caller must ask
                       // ChannelLoadResult::revalidation before using the result
};

enum class Reach {
  dependency_closure,  // the specs' names and everything they can depend on (a solve)
  named_only,          // the specs' own names (a search)
};

// A channel operator's message (CEP 48 info.repodata_revisions.<vN>.message).
struct ChannelMessage {
  std::string channel;   // as users know it ("conda-forge")
  std::string subdir;    // "noarch"
  std::string revision;  // "v3"
  std::string message;
  // "channel conda-forge (noarch, v3 records) says: ..."
  std::string text() const;
};
// Each loaded subdir's messages, in load order.
std::vector<ChannelMessage> channel_messages(const solver::ChannelLoadResult& loaded);

// The channels fetched for a load, not yet loaded: fetch_channels_for()
// then load_fetched_channels() is load_channels_for().
struct FetchedForLoad {
  solver::ChannelLoadOptions options;
  repodata::FetchedChannels fetched;
};

std::expected<FetchedForLoad, Error> fetch_channels_for(const Settings& settings,
                                                        const std::vector<specs::MatchSpec>& specs,
                                                        const std::vector<std::string>& file_channels, Reach reach,
                                                        Reporter& reporter, std::vector<std::string> installed_names,
                                                        Revalidation revalidation);

// Loads what fetch_channels_for brought, telling `reporter` as
// load_channels_for does.
std::expected<solver::ChannelLoadResult, Error> load_fetched_channels(solver::PackageDatabase& database,
                                                                     FetchedForLoad fetched, Reporter& reporter);

// Warnings (skipped records, an unwritable cache) go to `reporter`, and so
// do repodata downloads; channel messages (CEP 48) are notices.
// `installed_names`: the target prefix's packages, which the solve may keep
// or update although the specs do not reach them.
std::expected<solver::ChannelLoadResult, Error> load_channels_for(solver::PackageDatabase& database,
                                                                 const Settings& settings,
                                                                 const std::vector<specs::MatchSpec>& specs,
                                                                 const std::vector<std::string>& file_channels,
                                                                 Reach reach, Reporter& reporter,
                                                                 std::vector<std::string> installed_names = {},
                                                                 Revalidation revalidation = Revalidation::before_loading);

}  // namespace gpuenv::environment
