// Internal to the solver module (includes libsolv): the libsolv pool behind
// a PackageDatabase, the facts gpuenv keeps per repo, and the ids of the
// solvable attributes gpuenv stores beyond libsolv's own.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "gpuenv/solver/libsolv.hpp"
#include "gpuenv/solver/package_database.hpp"

namespace gpuenv::solver {

// How gpuenv stores a record in a solvable (and so in a .solv cache file):
//   name, evr (version)            the solvable itself
//   build string                   SOLVABLE_BUILDFLAVOR (libsolv matches and orders on it)
//   build number                   SOLVABLE_BUILDVERSION as text (libsolv orders on it) and
//                                  keys.build_number as a number (the value reported)
//   depends                        requires; constrains: SOLVABLE_CONSTRAINS
//   track_features                 SOLVABLE_TRACK_FEATURES (libsolv deprioritizes them)
//   md5 / sha256 / size / license  SOLVABLE_PKGID / SOLVABLE_CHECKSUM / SOLVABLE_DOWNLOADSIZE /
//                                  SOLVABLE_LICENSE
//   timestamp (milliseconds)       SOLVABLE_BUILDTIME
//   file name                      nothing when it is name-version-build.tar.bz2; keys.conda_archive
//                                  for name-version-build.conda; SOLVABLE_MEDIAFILE otherwise
//   subdir                         nothing when it is the repo's; SOLVABLE_MEDIADIR otherwise
//   channel, url                   nothing for channel repos (the repo knows them);
//                                  keys.channel / keys.url for installed records
//   CEP 43 conditional depends     requires (REL_COND), and their text as written in
//                                  keys.conditional_depends (libsolv's text of a
//                                  REL_COND is not a MatchSpec)
//   CEP 45 flags                   keys.flags
struct PoolKeys {
  Id build_number = 0;
  Id conda_archive = 0;
  Id noarch = 0;
  Id license_family = 0;
  Id features = 0;
  Id python_site_packages_path = 0;
  Id channel = 0;
  Id url = 0;
  Id conditional_depends = 0;
  Id flags = 0;
  // Repo-level (SOLVID_META) attributes of a .solv cache file.
  Id cache_format = 0;
  Id cache_source_size = 0;
  Id cache_source_mtime = 0;
  Id cache_source_path = 0;
  Id cache_only_tar_bz2 = 0;
  Id cache_subdir = 0;    // the repodata's info.subdir
  Id cache_base_url = 0;  // the repodata's info.base_url
  Id cache_revisions = 0;  // the repodata's info.repodata_revisions (key and message)
};

// `machine` holds the virtual packages when there are no installed records
// (a new environment): keeping them out of libsolv's installed repo spares
// libsolv its choice rules, which on a conda-forge-sized pool cost more than
// the rest of the solve; the solver then installs them by job instead.
enum class RepoKind { channel, installed, machine };

// What gpuenv knows about a repo beyond libsolv; repo->appdata points here.
struct RepoFacts {
  RepoKind kind = RepoKind::channel;
  ChannelSubdir source;
  // Where this repo's package files are downloaded from, ending in '/'.
  std::string package_base_url;
  // CEP 48's info.repodata_revisions (messages for the user).
  std::vector<repodata::RepodataRevision> revisions;
};

class PoolState {
 public:
  PoolState();
  ~PoolState();
  PoolState(const PoolState&) = delete;
  PoolState& operator=(const PoolState&) = delete;

  Pool* pool = nullptr;
  PoolKeys keys;
  Repo* installed = nullptr;  // libsolv's installed repo, if any
  Repo* machine = nullptr;    // the virtual packages' repo when it is not `installed`
  // Solvables that stand for virtual packages.
  std::vector<Id> virtual_packages;

  Repo* create_repo(RepoKind kind, ChannelSubdir source, std::string package_base_url);
  static const RepoFacts& facts_of(const Repo* repo) {
    return *static_cast<const RepoFacts*>(repo->appdata);
  }
  static bool is_channel(const Repo* repo) { return facts_of(repo).kind == RepoKind::channel; }
  // Makes libsolv's provider index current after repos were added.
  void ensure_whatprovides();
  void invalidate_whatprovides() { whatprovides_current_ = false; }

 private:
  std::deque<RepoFacts> facts_;  // stable addresses for repo->appdata
  bool whatprovides_current_ = false;
};

}  // namespace gpuenv::solver
