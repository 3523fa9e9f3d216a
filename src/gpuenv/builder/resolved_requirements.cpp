#include "gpuenv/builder/resolved_requirements.hpp"

#include <algorithm>

#include "gpuenv/builder/pin_spec.hpp"
#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::build {

namespace {

std::unexpected<BuildError> recipe_error(std::string message) {
  return std::unexpected(BuildError{BuildErrorKind::recipe, std::move(message)});
}

// What pins resolve against at one stage; `host` is null before the host
// environment is solved.
struct PinTargets {
  const recipe::RenderedVariant& variant;
  const std::vector<specs::PackageRecord>* host = nullptr;
};

std::expected<std::string, BuildError> resolved_spec(const recipe::Dependency& dependency, const PinTargets& targets,
                                                     const char* section) {
  if (!dependency.pin) return dependency.spec;
  const recipe::Pin& pin = *dependency.pin;
  const std::string where = recipe::dependency_text(dependency) + " in " + section;
  if (pin.kind == recipe::Pin::Kind::subpackage) {
    const auto& outputs = targets.variant.outputs;
    const auto output = std::find_if(outputs.begin(), outputs.end(),
                                     [&](const recipe::OutputIdentity& each) { return each.name == pin.name; });
    if (output == outputs.end()) {
      std::string names;
      for (const auto& each : outputs) names += (names.empty() ? "" : ", ") + each.name;
      return recipe_error(where + ": the recipe has no output named " + pin.name + " (its outputs: " + names +
                          "); pin_subpackage pins an output of the same recipe, pin_compatible a host package");
    }
    return pin_to_spec(pin, output->version, output->build_string);
  }
  if (targets.host == nullptr) {
    return recipe_error(where + ": pin_compatible pins the version the host environment holds, so it belongs in "
                                "run, run_constraints or run_exports");
  }
  const auto record = std::find_if(targets.host->begin(), targets.host->end(),
                                   [&](const specs::PackageRecord& each) { return each.name == pin.name; });
  if (record == targets.host->end()) {
    return recipe_error(where + ": " + pin.name + " is not in the host environment; add it to requirements.host");
  }
  return pin_to_spec(pin, record->version, record->build);
}

std::expected<std::vector<std::string>, BuildError> resolved_specs(const std::vector<recipe::Dependency>& dependencies,
                                                                   const PinTargets& targets, const char* section) {
  std::vector<std::string> specs;
  for (const auto& dependency : dependencies) {
    auto spec = resolved_spec(dependency, targets, section);
    if (!spec) return std::unexpected(std::move(spec.error()));
    specs.push_back(std::move(*spec));
  }
  return specs;
}

// conda-build's pin_run_as_build: a run requirement written as a bare name,
// listed there and present in the host environment, is pinned to the host's
// version (min_pin and max_pin as pin_compatible's lower and upper bounds).
std::expected<std::string, BuildError> pinned_as_built(const std::string& spec,
                                                       const std::vector<specs::PackageRecord>& host,
                                                       const RunAsBuildPins& pin_run_as_build) {
  const auto name = specs::MatchSpec::extract_name(spec);
  if (!name || *name != spec) return spec;
  const auto configured = pin_run_as_build.find(*name);
  if (configured == pin_run_as_build.end()) return spec;
  const auto record = std::find_if(host.begin(), host.end(),
                                   [&](const specs::PackageRecord& each) { return each.name == *name; });
  if (record == host.end()) return spec;
  recipe::Pin pin;
  pin.kind = recipe::Pin::Kind::compatible;
  pin.name = *name;
  pin.lower_bound = configured->second.min_pin.value_or("x.x.x.x.x.x");
  pin.upper_bound = configured->second.max_pin.value_or("x");
  auto pinned = pin_to_spec(pin, record->version, record->build);
  if (!pinned) {
    return recipe_error("pin_run_as_build of " + *name + " in the variant configuration: " + pinned.error().message);
  }
  return pinned;
}

}  // namespace

std::expected<std::vector<std::string>, BuildError> environment_specs(const std::vector<recipe::Dependency>& dependencies,
                                                                      const recipe::RenderedVariant& variant,
                                                                      const char* section) {
  return resolved_specs(dependencies, PinTargets{variant}, section);
}

std::expected<ResolvedRequirements, BuildError> final_requirements(const recipe::RenderedVariant& variant,
                                                                   const std::vector<specs::PackageRecord>& host,
                                                                   const AppliedRunExports& exported,
                                                                   const RunAsBuildPins& pin_run_as_build) {
  const auto& requirements = variant.requirements();
  const PinTargets targets{variant, &host};
  ResolvedRequirements resolved;
  auto run = resolved_specs(requirements.run, targets, "run");
  if (!run) return std::unexpected(std::move(run.error()));
  for (auto& spec : *run) {
    auto pinned = pinned_as_built(spec, host, pin_run_as_build);
    if (!pinned) return std::unexpected(std::move(pinned.error()));
    spec = std::move(*pinned);
  }
  append_new_specs(resolved.run, *run);
  append_new_specs(resolved.run, exported.run);
  auto constraints = resolved_specs(requirements.run_constraints, targets, "run_constraints");
  if (!constraints) return std::unexpected(std::move(constraints.error()));
  append_new_specs(resolved.run_constraints, *constraints);
  append_new_specs(resolved.run_constraints, exported.run_constraints);

  const auto& own = requirements.run_exports;
  const std::pair<const std::vector<recipe::Dependency>*, std::vector<std::string>*> lists[] = {
      {&own.noarch, &resolved.run_exports.noarch},
      {&own.strong, &resolved.run_exports.strong},
      {&own.strong_constraints, &resolved.run_exports.strong_constrains},
      {&own.weak, &resolved.run_exports.weak},
      {&own.weak_constraints, &resolved.run_exports.weak_constrains}};
  for (const auto& [from, into] : lists) {
    auto specs = resolved_specs(*from, targets, "run_exports");
    if (!specs) return std::unexpected(std::move(specs.error()));
    *into = std::move(*specs);
  }
  return resolved;
}

}  // namespace gpuenv::build
