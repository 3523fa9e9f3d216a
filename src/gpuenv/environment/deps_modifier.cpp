#include "gpuenv/environment/deps_modifier.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace gpuenv::environment {
namespace {

bool requested_by(const specs::PackageRecord& package, const std::vector<specs::MatchSpec>& requested) {
  return std::any_of(requested.begin(), requested.end(),
                     [&](const specs::MatchSpec& spec) { return spec.matches(package); });
}

// conda's NO_DEPS: the installed packages, with those of the requested
// packages' names replaced by the solved ones.
void keep_only_requested(solver::Solution& solution, const std::vector<specs::MatchSpec>& requested,
                         const std::vector<specs::PackageRecord>& installed) {
  std::erase_if(solution.link, [&](const specs::PackageRecord& package) { return !requested_by(package, requested); });
  std::set<std::string> replaced;
  for (const auto& package : solution.link) replaced.insert(package.name);
  solution.unlink.clear();
  for (const auto& package : installed) {
    if (replaced.contains(package.name)) solution.unlink.push_back(package);
  }
}

// conda's ONLY_DEPS: of the environment the solution makes, the requested
// packages no other package depends on are left out ("the youngest nodes"
// of conda's PrefixGraph); an installed version of one stays.
void leave_out_requested(solver::Solution& solution, const std::vector<specs::MatchSpec>& requested,
                         const std::vector<specs::PackageRecord>& installed) {
  std::map<std::string, const specs::PackageRecord*> result;  // one package of each name
  for (const auto& package : installed) result[package.name] = &package;
  for (const auto& package : solution.unlink) result.erase(package.name);
  for (const auto& package : solution.link) result[package.name] = &package;
  std::set<std::string> needed;
  for (const auto& [name, package] : result) {
    for (const auto& dependency : package->depends) {
      const auto dependency_name = specs::MatchSpec::extract_name(dependency);
      if (dependency_name && *dependency_name != name) needed.insert(*dependency_name);
    }
  }
  std::set<std::string> left_out;
  for (const auto& package : solution.link) {
    if (!needed.contains(package.name) && requested_by(package, requested)) left_out.insert(package.name);
  }
  std::erase_if(solution.link, [&](const specs::PackageRecord& package) { return left_out.contains(package.name); });
  std::erase_if(solution.unlink,
                [&](const specs::PackageRecord& package) { return left_out.contains(package.name); });
}

}  // namespace

void apply_deps_modifier(solver::Solution& solution, DepsModifier modifier,
                         const std::vector<specs::MatchSpec>& requested,
                         const std::vector<specs::PackageRecord>& installed) {
  switch (modifier) {
    case DepsModifier::none: return;
    case DepsModifier::no_deps: return keep_only_requested(solution, requested, installed);
    case DepsModifier::only_deps: return leave_out_requested(solution, requested, installed);
  }
}

}  // namespace gpuenv::environment
