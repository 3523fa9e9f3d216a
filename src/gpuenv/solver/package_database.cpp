#include "gpuenv/solver/package_database.hpp"

#include <algorithm>
#include <chrono>

#include "gpuenv/repodata/package_url.hpp"
#include "gpuenv/repodata/repodata_parser.hpp"
#include "gpuenv/solver/package_closure.hpp"
#include "gpuenv/solver/pool_state.hpp"
#include "gpuenv/solver/repo_writer.hpp"
#include "gpuenv/solver/solv_cache.hpp"
#include "gpuenv/solver/solvable_record.hpp"
#include "gpuenv/solver/spec_matching.hpp"

namespace gpuenv::solver {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Why a subdir's packages may not be taken from where its repodata says
// (CEP 15 base_url), or empty. conda refuses a subdir whose base_url it
// cannot use (ChannelError) rather than guess; gpuenv too.
std::string base_url_refusal(const ChannelSubdir& source, std::string_view base_url) {
  const auto problem = repodata::base_url_problem(source.subdir_url, base_url);
  if (problem.empty()) return {};
  return "channel " + source.channel_name + ", subdir " + source.subdir + ": " + problem +
         "; gpuenv does not use this channel, which is misconfigured or hostile: ask its maintainers to fix "
         "its repodata, or remove it from your channels";
}

// Restores what RepoWriter::on_header recorded, for a repo read from cache.
void restore_facts(PoolState& state, Repo* repo) {
  auto& facts = *static_cast<RepoFacts*>(repo->appdata);
  if (const char* subdir = repo_lookup_str(repo, SOLVID_META, state.keys.cache_subdir); subdir && *subdir) {
    facts.source.subdir = subdir;
  }
  const char* base_url = repo_lookup_str(repo, SOLVID_META, state.keys.cache_base_url);
  facts.package_base_url =
      repodata::package_directory_url(facts.source.subdir_url, base_url != nullptr ? base_url : "");
  if (const char* revisions = repo_lookup_str(repo, SOLVID_META, state.keys.cache_revisions)) {
    std::string_view rest(revisions);
    while (!rest.empty()) {
      const auto end = std::min(rest.find('\x1e'), rest.size());
      const std::string_view entry = rest.substr(0, end);
      const auto separator = entry.find('\x1f');
      repodata::RepodataRevision revision;
      revision.key = std::string(entry.substr(0, separator));
      if (separator != std::string_view::npos) revision.message = std::string(entry.substr(separator + 1));
      facts.revisions.push_back(std::move(revision));
      rest.remove_prefix(std::min(end + 1, rest.size()));
    }
  }
}

}  // namespace

// What add_reachable_records loaded from, to load again with more roots.
struct PackageDatabase::ReachableChannels {
  std::vector<std::shared_ptr<const repodata::RepodataIndex>> indexes;
  std::vector<ChannelSubdir> sources;
  std::vector<specs::MatchSpec> roots;
  bool follow_dependencies = true;
  std::vector<Repo*> repos;  // as loaded, one per index
  std::vector<std::vector<std::uint64_t>> offsets;
};

PackageDatabase::PackageDatabase() : state_(std::make_unique<PoolState>()) {}
PackageDatabase::~PackageDatabase() = default;
PackageDatabase::PackageDatabase(PackageDatabase&&) noexcept = default;
PackageDatabase& PackageDatabase::operator=(PackageDatabase&&) noexcept = default;

std::expected<LoadReport, repodata::RepodataError> PackageDatabase::add_repodata(
    const std::filesystem::path& repodata_json, const ChannelSubdir& source, const LoadOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  LoadReport report;
  Repo* repo = state_->create_repo(RepoKind::channel, source,
                                   repodata::package_directory_url(source.subdir_url, ""));

  std::optional<SolvCacheEntry> cache;
  if (!options.solv_cache_dir.empty()) {
    cache = solv_cache_entry(options.solv_cache_dir, repodata_json, source, options.only_tar_bz2);
  }
  if (cache) {
    if (auto loaded = read_solv_cache(*state_, repo, *cache)) {
      restore_facts(*state_, repo);
      state_->invalidate_whatprovides();
      report.records = static_cast<std::size_t>(repo->nsolvables);
      report.revisions = PoolState::facts_of(repo).revisions;
      report.from_solv_cache = true;
      report.seconds = seconds_since(start);
      return report;
    } else {
      report.solv_cache_note = loaded.error();
    }
  }

  RepoWriter writer(*state_, repo);
  repodata::ParseOptions parse_options;
  parse_options.source_label = options.source_label.empty() ? repodata_json.string() : options.source_label;
  parse_options.only_tar_bz2 = options.only_tar_bz2;
  auto parsed = repodata::parse_repodata_file(repodata_json, writer, parse_options);
  if (!parsed) {
    repo_free(repo, 1);
    state_->invalidate_whatprovides();
    return std::unexpected(std::move(parsed.error()));
  }
  if (auto refusal = base_url_refusal(source, parsed->header.base_url); !refusal.empty()) {
    repo_free(repo, 1);
    state_->invalidate_whatprovides();
    return std::unexpected(repodata::RepodataError{parse_options.source_label, std::nullopt, std::move(refusal)});
  }
  writer.finish();
  report.records = parsed->records;
  report.revisions = parsed->header.revisions;
  report.skipped_records = parsed->skipped;
  report.first_skipped = std::move(parsed->first_skipped);
  if (cache) {
    if (auto written = write_solv_cache(*state_, repo, *cache); !written) {
      report.solv_cache_write_error = written.error();
    }
  }
  report.seconds = seconds_since(start);
  return report;
}

std::expected<LoadReport, std::string> PackageDatabase::add_index_records(const repodata::RepodataIndex& index,
                                                                          std::span<const std::uint64_t> offsets,
                                                                          const ChannelSubdir& source) {
  const auto start = std::chrono::steady_clock::now();
  if (auto refusal = base_url_refusal(source, index.header().base_url); !refusal.empty()) {
    return std::unexpected(std::move(refusal));
  }
  Repo* repo = state_->create_repo(RepoKind::channel, source,
                                   repodata::package_directory_url(source.subdir_url, ""));
  RepoWriter writer(*state_, repo);
  writer.on_header(index.header());
  repodata::RepodataIndex::Decoder decoder;
  repodata::RawRecord record;
  for (const auto offset : offsets) {
    if (!decoder.decode(index, offset, record)) {
      repo_free(repo, 1);
      state_->invalidate_whatprovides();
      return std::unexpected(std::string("damaged record in the index"));
    }
    writer.on_record(record);
  }
  writer.finish();
  LoadReport report;
  report.records = offsets.size();
  report.from_index = true;
  report.subdir_records = index.record_count();
  report.revisions = index.header().revisions;
  report.skipped_records = index.skipped_records();
  report.first_skipped = index.first_skipped();
  report.seconds = seconds_since(start);
  return report;
}

std::optional<std::expected<std::vector<LoadReport>, std::string>> PackageDatabase::add_reachable_records(
    std::vector<std::shared_ptr<const repodata::RepodataIndex>> indexes, std::vector<ChannelSubdir> sources,
    std::vector<specs::MatchSpec> roots, bool follow_dependencies) {
  reachable_ = std::make_unique<ReachableChannels>();
  reachable_->indexes = std::move(indexes);
  reachable_->sources = std::move(sources);
  reachable_->roots = std::move(roots);
  reachable_->follow_dependencies = follow_dependencies;
  auto loaded = load_reachable();
  if (!loaded || !*loaded) reachable_.reset();
  return loaded;
}

std::optional<std::expected<std::vector<LoadReport>, std::string>> PackageDatabase::load_reachable() {
  auto& channels = *reachable_;
  std::vector<const repodata::RepodataIndex*> views;
  for (const auto& index : channels.indexes) views.push_back(index.get());
  auto reachable = reachable_records(views, channels.roots, channels.follow_dependencies);
  if (reachable.needs_everything || reachable.damaged) return std::nullopt;
  channels.offsets = std::move(reachable.offsets);
  channels.repos.clear();
  std::vector<LoadReport> reports;
  for (std::size_t i = 0; i < views.size(); ++i) {
    auto loaded = add_index_records(*views[i], channels.offsets[i], channels.sources[i]);
    if (!loaded) return std::expected<std::vector<LoadReport>, std::string>(std::unexpected(loaded.error()));
    channels.repos.push_back(state_->pool->repos[state_->pool->nrepos - 1]);
    reports.push_back(std::move(*loaded));
  }
  return reports;
}

// Installed packages the request does not reach still need their channel
// records (an update, a removal's dependents, a conflict only an upgrade of
// them solves): the closure grows by their names and the channel repos are
// loaded again, in the same order, so the pool is what a load with those
// roots from the start would have made.
void PackageDatabase::extend_reachable_to(const std::vector<specs::PackageRecord>& installed) {
  auto& channels = *reachable_;
  Pool* pool = state_->pool;
  // Only when the channel repos are still the last ones added.
  if (channels.repos.empty() || pool->repos[pool->nrepos - 1] != channels.repos.back()) return;
  std::vector<std::string> names;
  for (const auto& record : installed) names.push_back(record.name);
  std::vector<const repodata::RepodataIndex*> views;
  for (const auto& index : channels.indexes) views.push_back(index.get());
  auto reachable = reachable_records(views, channels.roots, channels.follow_dependencies, names);
  // Everything, when the closure cannot be had: never less than needed.
  if (reachable.needs_everything || reachable.damaged) reachable = all_records(views);
  if (reachable.offsets == channels.offsets) return;
  for (auto it = channels.repos.rbegin(); it != channels.repos.rend(); ++it) repo_free(*it, 1);
  channels.repos.clear();
  state_->invalidate_whatprovides();
  channels.offsets = std::move(reachable.offsets);
  for (std::size_t i = 0; i < views.size(); ++i) {
    // A damaged record was read fine a moment ago; if it is not now, the
    // repo stays short of it rather than the whole load failing here.
    if (!add_index_records(*views[i], channels.offsets[i], channels.sources[i])) {
      state_->create_repo(RepoKind::channel, channels.sources[i],
                          repodata::package_directory_url(channels.sources[i].subdir_url, ""));
    }
    channels.repos.push_back(pool->repos[pool->nrepos - 1]);
  }
}

void PackageDatabase::add_records(const std::vector<specs::PackageRecord>& records,
                                  const ChannelSubdir& source) {
  Repo* repo = state_->create_repo(RepoKind::channel, source,
                                   repodata::package_directory_url(source.subdir_url, ""));
  RepoWriter writer(*state_, repo);
  for (const auto& record : records) writer.add(record, false);
  writer.finish();
}

void PackageDatabase::set_installed(const std::vector<specs::PackageRecord>& installed,
                                    const std::vector<specs::VirtualPackage>& virtual_packages) {
  for (Repo** old : {&state_->installed, &state_->machine}) {
    if (*old != nullptr) repo_free(*old, 1);
    *old = nullptr;
  }
  state_->virtual_packages.clear();
  if (reachable_ != nullptr && !installed.empty()) extend_reachable_to(installed);
  ChannelSubdir source;
  source.channel_name = "installed";
  const RepoKind kind = installed.empty() ? RepoKind::machine : RepoKind::installed;
  Repo* repo = state_->create_repo(kind, source, "");
  RepoWriter writer(*state_, repo);
  for (const auto& record : installed) writer.add(record, true);
  for (const auto& virtual_package : virtual_packages) {
    specs::PackageRecord record;
    record.name = virtual_package.name;
    record.set_version(virtual_package.version);
    record.build = virtual_package.build;
    record.fn = record.dist_str() + ".tar.bz2";
    state_->virtual_packages.push_back(writer.add(record, true));
  }
  writer.finish();
  if (kind == RepoKind::installed) {
    pool_set_installed(state_->pool, repo);
    state_->installed = repo;
  } else {
    state_->machine = repo;
  }
}

std::vector<specs::PackageRecord> PackageDatabase::search(const specs::MatchSpec& spec) const {
  state_->ensure_whatprovides();
  auto ids = matching_solvables(*state_, spec, MatchScope::channels);
  Pool* pool = state_->pool;
  // Newest first, as conda search lists them in reverse.
  std::sort(ids.begin(), ids.end(), [&](Id a, Id b) {
    const Solvable* sa = pool->solvables + a;
    const Solvable* sb = pool->solvables + b;
    if (sa->name != sb->name) {
      return std::string_view(pool_id2str(pool, sa->name)) < pool_id2str(pool, sb->name);
    }
    if (const int c = pool_evrcmp(pool, sa->evr, sb->evr, EVRCMP_COMPARE); c != 0) return c > 0;
    const auto na = solvable_lookup_num(const_cast<Solvable*>(sa), state_->keys.build_number, 0);
    const auto nb = solvable_lookup_num(const_cast<Solvable*>(sb), state_->keys.build_number, 0);
    if (na != nb) return na > nb;
    const int ra = PoolState::facts_of(sa->repo).source.channel_rank;
    const int rb = PoolState::facts_of(sb->repo).source.channel_rank;
    if (ra != rb) return ra < rb;
    return a < b;
  });
  std::vector<specs::PackageRecord> records;
  records.reserve(ids.size());
  for (const Id p : ids) records.push_back(record_of(*state_, p));
  return records;
}

std::size_t PackageDatabase::channel_record_count() const {
  std::size_t count = 0;
  Pool* pool = state_->pool;
  for (int i = 1; i < pool->nrepos; ++i) {
    const Repo* repo = pool->repos[i];
    if (repo != nullptr && PoolState::is_channel(repo)) count += static_cast<std::size_t>(repo->nsolvables);
  }
  return count;
}

}  // namespace gpuenv::solver
