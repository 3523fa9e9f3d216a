// The requirements of the package being built, as match specs, resolved
// as far as each stage of the build knows them:
//   - before the environments are solved, build and host requirements with
//     pin_subpackage resolved against the outputs of the same variant
//     (pin_compatible there is an error: it needs the host environment);
//   - once the host environment is solved, run, run_constraints and the
//     recipe's own run_exports: pins resolved (pin_compatible against the
//     host environment's package, pin_subpackage against the outputs),
//     conda-build's pin_run_as_build applied to bare run requirements that
//     the host environment holds, then the environments' run_exports
//     (run_exports.hpp) appended, duplicates dropped.
// pin_to_spec (pin_spec.hpp) writes each pin.
#pragma once

#include <expected>
#include <map>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/run_exports.hpp"
#include "gpuenv/recipe/variant_config.hpp"
#include "gpuenv/recipe/variants.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::build {

using RunAsBuildPins = std::map<std::string, recipe::RunAsBuildPin, std::less<>>;

// What index.json (depends, constrains) and info/run_exports.json say.
struct ResolvedRequirements {
  std::vector<std::string> run, run_constraints;
  ExportedSpecs run_exports;
};

// `dependencies` of `section` ("build" or "host") as specs to solve.
std::expected<std::vector<std::string>, BuildError> environment_specs(const std::vector<recipe::Dependency>& dependencies,
                                                                      const recipe::RenderedVariant& variant,
                                                                      const char* section);

// run, run_constraints and run_exports of `variant` once `host` (the host
// environment's packages) is known, with `exported` (apply_run_exports)
// appended. Errors: a pin naming no output or no host package, a malformed pin.
std::expected<ResolvedRequirements, BuildError> final_requirements(const recipe::RenderedVariant& variant,
                                                                   const std::vector<specs::PackageRecord>& host,
                                                                   const AppliedRunExports& exported,
                                                                   const RunAsBuildPins& pin_run_as_build);

}  // namespace gpuenv::build
