// The run_exports of the build and host environments' packages, applied to
// the package being built as conda-build and rattler-build apply them:
//   - only the packages the build/host requirements name export; what they
//     pulled in does not (rattler-build 0.73: a host `apkg` whose dependency
//     `cpkg` exports `cpkg >=3` adds apkg's exports only);
//   - build environment: strong -> host requirements and run,
//     strong_constrains -> run_constraints;
//   - host environment: strong and weak -> run, strong_constrains and
//     weak_constrains -> run_constraints;
//   - a noarch package takes only the host packages' `noarch` exports (run);
//   - requirements.ignore_run_exports: by_name drops every exported spec of
//     that package name, from_package drops everything that package exports.
// Order, as rattler-build writes index.json: strong before weak, each in the
// environment's link order (dependencies first); exact duplicates dropped.
//
// Read from info/run_exports.json of the package cache entry each linked
// package came from (its conda-meta record names it): that is the package
// itself, for every kind of channel, where a channel's run_exports.json
// exists only for channels indexed by a recent conda-index.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/recipe/recipe_types.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::build {

// info/run_exports.json's lists, as match spec texts.
struct ExportedSpecs {
  std::vector<std::string> noarch, strong, strong_constrains, weak, weak_constrains;
  bool empty() const {
    return noarch.empty() && strong.empty() && strong_constrains.empty() && weak.empty() && weak_constrains.empty();
  }
};

struct PackageRunExports {
  std::string package;  // the exporting package's name
  ExportedSpecs exports;
};

// run_exports.json holds a few specs; a package with more than this is not one to trust.
inline constexpr std::uintmax_t kMaxRunExportsBytes = 1u << 20;

// Parses run_exports.json's text (an object of lists of specs; conda-build's
// older plain list means weak). `origin` names the file in errors.
std::expected<ExportedSpecs, BuildError> parse_run_exports_json(std::string_view text, const std::string& origin);

// The exports of the packages of `linked` (the environment's solution, in
// link order) that `requested` (the environment's specs) name, read from
// the package cache entries `prefix`'s conda-meta records point at. A
// package without info/run_exports.json exports nothing. Errors name the
// package and the file: unreadable, over kMaxRunExportsBytes, malformed.
std::expected<std::vector<PackageRunExports>, BuildError> environment_run_exports(
    const std::filesystem::path& prefix, const std::vector<specs::PackageRecord>& linked,
    const std::vector<std::string>& requested);

struct AppliedRunExports {
  std::vector<std::string> host;  // to add to the host requirements (the build environment's strong exports)
  std::vector<std::string> run, run_constraints;
};

AppliedRunExports apply_run_exports(const std::vector<PackageRunExports>& build_environment,
                                    const std::vector<PackageRunExports>& host_environment,
                                    const recipe::IgnoreRunExports& ignore, bool noarch);

// `additions` appended to `specs`, each unless the same text is already there.
void append_new_specs(std::vector<std::string>& specs, const std::vector<std::string>& additions);

}  // namespace gpuenv::build
