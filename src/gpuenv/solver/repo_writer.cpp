#include "gpuenv/solver/repo_writer.hpp"

#include <vector>

#include "gpuenv/repodata/package_url.hpp"
#include "gpuenv/solver/conditional_dependency.hpp"
#include "gpuenv/util/hex.hpp"

namespace gpuenv::solver {
namespace {

// Whether `filename` is name-version-build followed by `extension`: true for
// nearly every record, which then needs no stored file name.
bool is_standard_filename(std::string_view filename, std::string_view name, std::string_view version,
                          std::string_view build, std::string_view extension) noexcept {
  if (filename.size() != name.size() + version.size() + build.size() + 2 + extension.size()) return false;
  std::size_t at = 0;
  const auto take = [&](std::string_view part) {
    if (filename.substr(at, part.size()) != part) return false;
    at += part.size();
    return true;
  };
  return take(name) && take("-") && take(version) && take("-") && take(build) && take(extension);
}

}  // namespace

RepoWriter::RepoWriter(PoolState& state, Repo* repo)
    : state_(state), repo_(repo), data_(repo_add_repodata(repo, 0)), dependencies_(state.pool) {
  repo_subdir_ = intern(PoolState::facts_of(repo).source.subdir);
}

void RepoWriter::on_header(const repodata::RepodataHeader& header) {
  auto& facts = *static_cast<RepoFacts*>(repo_->appdata);
  if (!header.subdir.empty()) {
    facts.source.subdir = header.subdir;
    repo_subdir_ = intern(header.subdir);
  }
  facts.package_base_url = repodata::package_directory_url(facts.source.subdir_url, header.base_url);
  // Kept with the repo so that a .solv cache restores the same facts.
  repodata_set_str(data_, SOLVID_META, state_.keys.cache_subdir, facts.source.subdir.c_str());
  repodata_set_str(data_, SOLVID_META, state_.keys.cache_base_url, header.base_url.c_str());
  facts.revisions = header.revisions;
  if (!header.revisions.empty()) {
    // Messages hold no control characters but newlines (repodata_revisions.cpp).
    std::string encoded;
    for (const auto& revision : header.revisions) encoded += revision.key + '\x1f' + revision.message + '\x1e';
    repodata_set_str(data_, SOLVID_META, state_.keys.cache_revisions, encoded.c_str());
  }
}

Id RepoWriter::build_number_id(std::uint64_t number) {
  if (number < small_build_numbers_.size() && small_build_numbers_[number] != 0) {
    return small_build_numbers_[number];
  }
  const Id id = intern(std::to_string(number));
  if (number < small_build_numbers_.size()) small_build_numbers_[number] = id;
  return id;
}

Id RepoWriter::add_identity(const Identity& identity) {
  Pool* pool = state_.pool;
  const Id p = repo_add_solvable(repo_);
  Solvable* s = pool_id2solvable(pool, p);
  s->name = intern(identity.name);
  s->evr = intern(identity.version);
  // conda packages provide only themselves.
  s->provides = repo_addid_dep(repo_, s->provides, pool_rel2id(pool, s->name, s->evr, REL_EQ, 1), 0);
  repodata_set_id(data_, p, SOLVABLE_BUILDFLAVOR, intern(identity.build));
  repodata_set_id(data_, p, SOLVABLE_BUILDVERSION, build_number_id(identity.build_number));
  repodata_set_num(data_, p, state_.keys.build_number, identity.build_number);

  if (is_standard_filename(identity.filename, identity.name, identity.version, identity.build, ".conda")) {
    repodata_set_void(data_, p, state_.keys.conda_archive);
  } else if (!is_standard_filename(identity.filename, identity.name, identity.version, identity.build,
                                   ".tar.bz2")) {
    scratch_.assign(identity.filename);
    repodata_set_str(data_, p, SOLVABLE_MEDIAFILE, scratch_.c_str());
  }
  if (!identity.subdir.empty()) {
    const Id subdir = intern(identity.subdir);
    if (subdir != repo_subdir_) repodata_set_id(data_, p, SOLVABLE_MEDIADIR, subdir);
  }
  return p;
}

void RepoWriter::set_checksum(Id solvable, Id key, Id type, std::string_view hex, std::size_t bytes) {
  unsigned char binary[32];
  // Not a checksum: better none than a wrong one.
  if (bytes > sizeof(binary) || !util::hex_to_binary(hex, binary, bytes)) return;
  repodata_set_bin_checksum(data_, solvable, key, type, binary);
}

void RepoWriter::on_record(const repodata::RawRecord& record) { write(record, true); }

Id RepoWriter::write(const repodata::RawRecord& record, bool cache_dependencies) {
  const Id p = add_identity({record.name, record.version, record.build, record.filename, record.subdir,
                             record.build_number});
  const auto dependency_id = [&](std::string_view text) {
    return cache_dependencies ? dependencies_.intern(text) : intern_dependency(state_.pool, text);
  };
  // A channel record with an entry nobody can read must not install as if
  // the entry were not there. An installed record keeps what it has: the
  // environment was made already, and it must not stop every later solve.
  const bool from_channel = PoolState::is_channel(repo_);
  Solvable* s = pool_id2solvable(state_.pool, p);
  const auto require = [&](Id id) { s->solv_requires = repo_addid_dep(repo_, s->solv_requires, id, 0); };
  for (const auto dependency : record.depends) {
    if (const Id id = dependency_id(dependency)) {
      require(id);
      if (is_conditional_dependency(state_.pool, id)) {
        repodata_add_idarray(data_, p, state_.keys.conditional_depends, intern(dependency));
      }
    } else if (from_channel) {
      require(unreadable_dependency(state_.pool, UnreadableField::depends, dependency));
    }
  }
  for (const auto constraint : record.constrains) {
    // libsolv's conda constraints take plain dependencies only: a CEP 43
    // condition on a constraint is refused like an unreadable entry.
    if (const Id id = dependency_id(constraint); id != 0 && !is_conditional_dependency(state_.pool, id)) {
      repodata_add_idarray(data_, p, SOLVABLE_CONSTRAINS, id);
    } else if (from_channel) {
      require(unreadable_dependency(state_.pool, UnreadableField::constrains, constraint));
    }
  }
  for (const auto feature : record.track_features) {
    repodata_add_idarray(data_, p, SOLVABLE_TRACK_FEATURES, intern(feature));
    s->provides = repo_addid_dep(repo_, s->provides, feature_dependency(state_.pool, feature), 0);
  }
  for (const auto flag : record.flags) repodata_add_idarray(data_, p, state_.keys.flags, intern(flag));
  for (const auto feature : record.features) {
    repodata_add_idarray(data_, p, state_.keys.features, intern(feature));
    // conda: without a package that tracks the feature, the featured build
    // is not installable. An installed record keeps what it has (as above).
    if (from_channel) require(feature_dependency(state_.pool, feature));
  }
  set_checksum(p, SOLVABLE_PKGID, REPOKEY_TYPE_MD5, record.md5, 16);
  set_checksum(p, SOLVABLE_CHECKSUM, REPOKEY_TYPE_SHA256, record.sha256, 32);
  if (record.size) repodata_set_num(data_, p, SOLVABLE_DOWNLOADSIZE, *record.size);
  if (record.timestamp_ms != 0) repodata_set_num(data_, p, SOLVABLE_BUILDTIME, record.timestamp_ms);
  if (!record.license.empty()) repodata_set_id(data_, p, SOLVABLE_LICENSE, intern(record.license));
  if (!record.license_family.empty()) {
    repodata_set_id(data_, p, state_.keys.license_family, intern(record.license_family));
  }
  if (record.noarch != specs::NoarchType::none) {
    repodata_set_id(data_, p, state_.keys.noarch, intern(specs::to_string(record.noarch)));
  }
  if (!record.python_site_packages_path.empty()) {
    scratch_.assign(record.python_site_packages_path);
    repodata_set_str(data_, p, state_.keys.python_site_packages_path, scratch_.c_str());
  }
  return p;
}

Id RepoWriter::add(const specs::PackageRecord& record, bool keep_origin) {
  // Seen through the parser's view type, so both paths store records alike.
  const std::string filename = record.fn.empty() ? record.dist_str() + ".tar.bz2" : record.fn;
  const auto views = [](const std::vector<std::string>& strings) {
    return std::vector<std::string_view>(strings.begin(), strings.end());
  };
  const auto depends = views(record.depends);
  const auto constrains = views(record.constrains);
  const auto track_features = views(record.track_features);
  const auto features = views(record.features);
  const auto flags = views(record.flags);
  repodata::RawRecord raw;
  raw.filename = filename;
  raw.archive = repodata::archive_kind_of(filename);
  raw.name = record.name;
  raw.version = record.version;
  raw.build = record.build;
  raw.build_number = record.build_number;
  raw.subdir = record.subdir;
  raw.md5 = record.md5;
  raw.sha256 = record.sha256;
  raw.size = record.size;
  raw.timestamp_ms = record.timestamp;
  raw.license = record.license;
  raw.license_family = record.license_family;
  raw.noarch = record.noarch;
  raw.python_site_packages_path = record.python_site_packages_path;
  raw.depends = depends;
  raw.constrains = constrains;
  raw.track_features = track_features;
  raw.features = features;
  raw.flags = flags;
  const Id p = write(raw, false);
  if (keep_origin) {
    if (!record.channel.empty()) repodata_set_str(data_, p, state_.keys.channel, record.channel.c_str());
    if (!record.url.empty()) repodata_set_str(data_, p, state_.keys.url, record.url.c_str());
  }
  return p;
}

void RepoWriter::finish() {
  repo_internalize(repo_);
  state_.invalidate_whatprovides();
}

}  // namespace gpuenv::solver
