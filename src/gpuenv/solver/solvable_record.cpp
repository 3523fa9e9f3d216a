#include "gpuenv/solver/solvable_record.hpp"

#include <algorithm>

#include "gpuenv/repodata/package_url.hpp"
#include "gpuenv/solver/conditional_dependency.hpp"
#include "gpuenv/solver/dependency_interner.hpp"

namespace gpuenv::solver {
namespace {

std::string lookup_string(Solvable* s, Id key) {
  const char* text = solvable_lookup_str(s, key);
  return text != nullptr ? std::string(text) : std::string();
}

std::vector<std::string> id_strings(Pool* pool, Solvable* s, Id key, bool dependencies) {
  std::vector<std::string> values;
  Queue queue;
  queue_init(&queue);
  solvable_lookup_idarray(s, key, &queue);
  for (int i = 0; i < queue.count; ++i) {
    values.emplace_back(dependencies ? pool_dep2str(pool, queue.elements[i])
                                     : pool_id2str(pool, queue.elements[i]));
  }
  queue_free(&queue);
  return values;
}

}  // namespace

specs::PackageRecord record_of(const PoolState& state, Id solvable, RecordDetail detail) {
  Pool* pool = state.pool;
  Solvable* s = pool_id2solvable(pool, solvable);
  const RepoFacts& facts = PoolState::facts_of(s->repo);
  specs::PackageRecord record;
  record.name = pool_id2str(pool, s->name);
  record.set_version(pool_id2str(pool, s->evr));
  record.build = lookup_string(s, SOLVABLE_BUILDFLAVOR);
  record.build_number = solvable_lookup_num(s, state.keys.build_number, 0);

  record.subdir = lookup_string(s, SOLVABLE_MEDIADIR);
  if (record.subdir.empty()) record.subdir = facts.source.subdir;
  record.fn = lookup_string(s, SOLVABLE_MEDIAFILE);
  if (record.fn.empty()) {
    const bool conda = solvable_lookup_void(s, state.keys.conda_archive) != 0;
    record.fn = record.dist_str() + (conda ? ".conda" : ".tar.bz2");
  }
  record.channel = lookup_string(s, state.keys.channel);
  if (record.channel.empty()) record.channel = facts.source.channel_url;
  record.url = lookup_string(s, state.keys.url);
  if (record.url.empty() && !facts.package_base_url.empty()) {
    record.url = repodata::package_url(facts.package_base_url, record.fn);
  }

  Id type = 0;
  if (const char* md5 = solvable_lookup_checksum(s, SOLVABLE_PKGID, &type)) record.md5 = md5;
  if (const char* sha = solvable_lookup_checksum(s, SOLVABLE_CHECKSUM, &type)) record.sha256 = sha;
  if (const auto size = solvable_lookup_num(s, SOLVABLE_DOWNLOADSIZE, 0); size != 0) record.size = size;
  record.timestamp = solvable_lookup_num(s, SOLVABLE_BUILDTIME, 0);
  record.license = lookup_string(s, SOLVABLE_LICENSE);
  record.license_family = lookup_string(s, state.keys.license_family);
  record.noarch = specs::parse_noarch(lookup_string(s, state.keys.noarch));
  record.python_site_packages_path = lookup_string(s, state.keys.python_site_packages_path);
  record.track_features = id_strings(pool, s, SOLVABLE_TRACK_FEATURES, false);
  std::sort(record.track_features.begin(), record.track_features.end());
  record.features = id_strings(pool, s, state.keys.features, false);
  std::sort(record.features.begin(), record.features.end());
  record.flags = id_strings(pool, s, state.keys.flags, false);

  if (detail == RecordDetail::full) {
    record.constrains = id_strings(pool, s, SOLVABLE_CONSTRAINS, true);
    if (s->solv_requires != 0) {
      for (Id* dep = s->repo->idarraydata + s->solv_requires; *dep != 0; ++dep) {
        const char* text = pool_dep2str(pool, *dep);
        // An entry the solver could not read reads as the channel wrote it.
        if (as_feature_dependency(text)) continue;  // read back as `features`
        if (is_conditional_dependency(pool, *dep)) continue;  // read back as written, below
        if (const auto unreadable = as_unreadable_dependency(text)) {
          auto& list = unreadable->field == UnreadableField::depends ? record.depends : record.constrains;
          list.emplace_back(unreadable->text);
        } else {
          record.depends.emplace_back(text);
        }
      }
    }
    for (auto& conditional : id_strings(pool, s, state.keys.conditional_depends, false)) {
      record.depends.push_back(std::move(conditional));
    }
    // libsolv's .solv files store dependency lists in their own order; sorted,
    // a record reads the same from JSON and from the cache (repodata writes
    // them sorted too).
    std::sort(record.depends.begin(), record.depends.end());
    std::sort(record.constrains.begin(), record.constrains.end());
  }
  return record;
}

std::string dist_of(const PoolState& state, Id solvable) {
  Solvable* s = pool_id2solvable(state.pool, solvable);
  std::string dist = pool_id2str(state.pool, s->name);
  dist.append("-").append(pool_id2str(state.pool, s->evr));
  if (const char* build = solvable_lookup_str(s, SOLVABLE_BUILDFLAVOR)) dist.append("-").append(build);
  return dist;
}

bool is_virtual_solvable(const PoolState& state, Id solvable) {
  return std::find(state.virtual_packages.begin(), state.virtual_packages.end(), solvable) !=
         state.virtual_packages.end();
}

}  // namespace gpuenv::solver
