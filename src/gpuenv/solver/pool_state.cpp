#include "gpuenv/solver/pool_state.hpp"

#include <stdexcept>

namespace gpuenv::solver {

PoolState::PoolState() : pool(pool_create()) {
  // Conda version comparison and matchspec dependencies; without it libsolv
  // would compare versions the rpm way.
  if (pool_setdisttype(pool, DISTTYPE_CONDA) == -1) {
    pool_free(pool);
    throw std::runtime_error(
        "the linked libsolv lacks conda support (ENABLE_CONDA): rebuild it with scripts/setup.sh");
  }
  // libsolv's debug output would otherwise go to stdout and break --json.
  pool->debugmask |= SOLV_DEBUG_TO_STDERR;
  pool_setdebuglevel(pool, 0);

  const auto key = [this](const char* name) { return pool_str2id(pool, name, 1); };
  keys.build_number = key("gpuenv:build_number");
  keys.conda_archive = key("gpuenv:conda_archive");
  keys.noarch = key("gpuenv:noarch");
  keys.license_family = key("gpuenv:license_family");
  keys.features = key("gpuenv:features");
  keys.python_site_packages_path = key("gpuenv:python_site_packages_path");
  keys.channel = key("gpuenv:channel");
  keys.url = key("gpuenv:url");
  keys.conditional_depends = key("gpuenv:conditional_depends");
  keys.flags = key("gpuenv:flags");
  keys.cache_format = key("gpuenv:cache_format");
  keys.cache_source_size = key("gpuenv:cache_source_size");
  keys.cache_source_mtime = key("gpuenv:cache_source_mtime");
  keys.cache_source_path = key("gpuenv:cache_source_path");
  keys.cache_only_tar_bz2 = key("gpuenv:cache_only_tar_bz2");
  keys.cache_subdir = key("gpuenv:cache_subdir");
  keys.cache_base_url = key("gpuenv:cache_base_url");
  keys.cache_revisions = key("gpuenv:cache_revisions");
}

PoolState::~PoolState() { pool_free(pool); }

Repo* PoolState::create_repo(RepoKind kind, ChannelSubdir source, std::string package_base_url) {
  auto& facts = facts_.emplace_back();
  facts.kind = kind;
  facts.source = std::move(source);
  facts.package_base_url = std::move(package_base_url);
  const std::string name = kind == RepoKind::installed ? std::string("installed")
                           : kind == RepoKind::machine ? std::string("virtual packages")
                                                       : facts.source.channel_name + "/" + facts.source.subdir;
  Repo* repo = repo_create(pool, name.c_str());
  repo->appdata = &facts;
  invalidate_whatprovides();
  return repo;
}

void PoolState::ensure_whatprovides() {
  if (whatprovides_current_) return;
  pool_createwhatprovides(pool);
  whatprovides_current_ = true;
}

}  // namespace gpuenv::solver
