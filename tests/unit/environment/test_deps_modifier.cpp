// --no-deps and --only-deps as conda's solver applies them after the solve
// (conda/core/solve.py, _post_sat_handling): the solution is cut down, the
// solve itself is the ordinary one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/environment/deps_modifier.hpp"

namespace gpuenv::environment {
namespace {

specs::PackageRecord record(const std::string& name, const std::string& version,
                            std::vector<std::string> depends = {}) {
  specs::PackageRecord package;
  package.name = name;
  package.set_version(version);
  package.build = "0";
  package.depends = std::move(depends);
  return package;
}

std::vector<specs::MatchSpec> specs_of(const std::vector<std::string>& texts) {
  std::vector<specs::MatchSpec> parsed;
  for (const auto& text : texts) parsed.push_back(specs::MatchSpec::parse(text));
  return parsed;
}

std::vector<std::string> dists(const std::vector<specs::PackageRecord>& records) {
  std::vector<std::string> out;
  for (const auto& package : records) out.push_back(package.dist_str());
  return out;
}

// conda's test_create_only_deps_flag channel: another_dependent and
// other_dependent need dependent, which needs dependency.
const auto dependency = record("dependency", "1.0");
const auto dependent = record("dependent", "1.0", {"dependency"});
const auto another_dependent = record("another_dependent", "1.0", {"dependent"});

TEST(DepsModifier, NoneLeavesTheSolutionAsItIs) {
  solver::Solution solution{{dependency, dependent}, {}};
  apply_deps_modifier(solution, DepsModifier::none, specs_of({"dependent"}), {});
  EXPECT_EQ(dists(solution.link), (std::vector<std::string>{"dependency-1.0-0", "dependent-1.0-0"}));
}

TEST(DepsModifier, NoDepsLinksOnlyTheRequestedPackages) {
  solver::Solution solution{{dependency, dependent, another_dependent}, {}};
  apply_deps_modifier(solution, DepsModifier::no_deps, specs_of({"another_dependent", "dependency"}), {});
  EXPECT_EQ(dists(solution.link), (std::vector<std::string>{"dependency-1.0-0", "another_dependent-1.0-0"}));
  EXPECT_TRUE(solution.unlink.empty());
}

TEST(DepsModifier, NoDepsNeitherUpdatesNorRemovesInstalledDependencies) {
  // The solve would update dependency to 2.0 for dependent 2.0: --no-deps
  // replaces dependent only and leaves dependency 1.0 installed.
  const auto old_dependent = record("dependent", "1.0", {"dependency"});
  const auto new_dependency = record("dependency", "2.0");
  const auto new_dependent = record("dependent", "2.0", {"dependency >=2"});
  solver::Solution solution{{new_dependency, new_dependent}, {dependency, old_dependent}};
  apply_deps_modifier(solution, DepsModifier::no_deps, specs_of({"dependent=2"}), {dependency, old_dependent});
  EXPECT_EQ(dists(solution.link), (std::vector<std::string>{"dependent-2.0-0"}));
  EXPECT_EQ(dists(solution.unlink), (std::vector<std::string>{"dependent-1.0-0"}));
}

TEST(DepsModifier, OnlyDepsLeavesOutTheRequestedPackagesNothingNeeds) {
  solver::Solution solution{{dependency, dependent, another_dependent}, {}};
  apply_deps_modifier(solution, DepsModifier::only_deps, specs_of({"dependent", "another_dependent"}), {});
  // dependent is requested, but another_dependent needs it: it stays, as in conda.
  EXPECT_EQ(dists(solution.link), (std::vector<std::string>{"dependency-1.0-0", "dependent-1.0-0"}));
}

TEST(DepsModifier, OnlyDepsKeepsAnInstalledVersionOfARequestedPackage) {
  // conda adds back what the prefix already has: an installed dependent 0.9
  // is neither replaced nor removed.
  const auto installed = record("dependent", "0.9", {"dependency"});
  solver::Solution solution{{dependent}, {installed}};
  apply_deps_modifier(solution, DepsModifier::only_deps, specs_of({"dependent"}), {dependency, installed});
  EXPECT_TRUE(solution.link.empty());
  EXPECT_TRUE(solution.unlink.empty());
}

TEST(DepsModifier, OnlyDepsCountsInstalledDependentsToo) {
  // another_dependent is installed and needs dependent: asking for dependent
  // with --only-deps still installs it.
  solver::Solution solution{{dependency, dependent}, {}};
  apply_deps_modifier(solution, DepsModifier::only_deps, specs_of({"dependent"}), {another_dependent});
  EXPECT_EQ(dists(solution.link), (std::vector<std::string>{"dependency-1.0-0", "dependent-1.0-0"}));
}

}  // namespace
}  // namespace gpuenv::environment
