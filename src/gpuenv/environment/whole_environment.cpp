#include "gpuenv/environment/whole_environment.hpp"

#include <fmt/core.h>

#include <system_error>

#include "gpuenv/environment/installed_environment.hpp"
#include "gpuenv/environment/prefix_location.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::environment {

namespace fs = std::filesystem;

std::expected<RequestFiles, Error> clone_source(const std::string& source, const util::EnvLookup& env) {
  PrefixChoice choice;
  (source.find('/') == std::string::npos ? choice.name : choice.path) = source;
  const auto prefix = resolve_prefix(choice, env, WhenNoPrefixGiven::refuse);
  if (!prefix) return std::unexpected(prefix.error());
  auto installed = read_installed_environment(*prefix);
  if (!installed) return std::unexpected(installed.error());
  if (!installed->warnings.empty()) {
    return std::unexpected(make_error(ErrorKind::not_an_environment,
                                      fmt::format("cannot clone {}: {}; a clone would miss those packages",
                                                  prefix->string(), installed->warnings.front())));
  }
  RequestFiles files;
  files.is_explicit = true;
  for (const auto& record : installed->records) {
    if (record.package.url.empty()) {
      return std::unexpected(make_error(
          ErrorKind::configuration, fmt::format("cannot clone {}: the record of {} has no URL to fetch it from",
                                                prefix->string(), record.package.dist_str())));
    }
    files.explicit_packages.push_back(record.package);
  }
  if (files.explicit_packages.empty()) {
    return std::unexpected(
        make_error(ErrorKind::usage, fmt::format("{} has no packages to clone: create the new environment with `gpuenv create` and the packages you want instead", prefix->string())));
  }
  return files;
}

std::optional<Error> refuse_deleting(const fs::path& prefix, const util::EnvLookup& env, bool override_frozen) {
  const auto same = [&prefix](const fs::path& other) {
    std::error_code error;
    return !other.empty() && fs::equivalent(prefix, other, error);
  };
  std::error_code error;
  if (!fs::is_directory(prefix / "conda-meta", error)) {
    return make_error(ErrorKind::not_an_environment,
                      fmt::format("{} is not an environment (it has no conda-meta directory): nothing was removed",
                                  prefix.string()));
  }
  const auto home = env("HOME");
  if (same("/") || (home && same(*home))) {
    return make_error(ErrorKind::usage,
                      fmt::format("refusing to delete {}: it is / or the home directory, not an environment "
                                  "directory",
                                  prefix.string()));
  }
  if (same(util::resolve_user_directories(env).root_prefix)) {
    return make_error(ErrorKind::usage, fmt::format("cannot remove the base environment ({}): remove packages from "
                                                    "it by name instead, or name another one with -n or -p",
                                                    prefix.string()));
  }
  // The transaction refuses a frozen environment's packages too; this also
  // covers one with no package left.
  if (!override_frozen && fs::exists(prefix / "conda-meta" / "frozen", error)) {
    return make_error(ErrorKind::transaction,
                      fmt::format("the environment {} is frozen (CEP 22): it was not removed; add "
                                  "--override-frozen if you must",
                                  prefix.string()));
  }
  if (const auto active = env("CONDA_PREFIX"); active && same(*active)) {
    return make_error(ErrorKind::usage, fmt::format("cannot remove the active environment {}: deactivate it first, "
                                                    "then run this again",
                                                    prefix.string()));
  }
  return std::nullopt;
}

ChangeRequest removal_of_every_package(const fs::path& prefix, bool dry_run, std::vector<std::string>& warnings) {
  const auto installed = prefix::read_prefix_records(prefix);
  warnings.insert(warnings.end(), installed.problems.begin(), installed.problems.end());
  ChangeRequest request;
  request.kind = ChangeKind::remove;
  request.prefix = prefix;
  request.dry_run = dry_run;
  for (const auto& record : installed.records) request.specs.push_back(record.package.name);
  return request;
}

std::expected<void, Error> delete_environment_directory(const fs::path& prefix) {
  std::error_code error;
  fs::remove_all(prefix, error);
  if (!error) return {};
  return std::unexpected(make_error(ErrorKind::transaction,
                                    fmt::format("every package was removed from {}, but the directory could not "
                                                "be deleted: {}; delete it by hand",
                                                prefix.string(), error.message())));
}

}  // namespace gpuenv::environment
