// Explanations from hand-made problem graphs: the tree's shape, grouping of
// builds, and the words for virtual packages.
#include <gtest/gtest.h>

#include "gpuenv/solver/explanation.hpp"

namespace gpuenv::solver {
namespace {

ProblemGraph::Package pkg(const std::string& name, const std::string& version, const std::string& build = "0") {
  ProblemGraph::Package package;
  package.name = name;
  package.version = version;
  package.build = build;
  return package;
}

TEST(Explanation, RendersATreeFromTheRequestDownToTheReason) {
  ProblemGraph graph;
  graph.packages = {pkg("app", "2.0"), pkg("lib", "1.5"), pkg("lib", "1.4")};
  graph.jobs.push_back({ProblemGraph::JobKind::install, "app", {0}});
  graph.requirements.push_back({0, "lib >=1.4", {1, 2}, false, {}});
  graph.requirements.push_back({1, "zlib >=2", {}, false, {"1.3", "1.2"}});
  graph.requirements.push_back({2, "zlib >=2", {}, false, {"1.3", "1.2"}});
  const auto trees = explain_problem(graph, {});
  ASSERT_EQ(trees.size(), 1u);
  EXPECT_EQ(render_tree(trees[0].root),
            (std::vector<std::string>{
                "cannot install app",
                "└─ app 2.0 0 needs lib >=1.4",
                "   └─ lib 1.5 | 1.4 (2 builds) needs zlib >=2, but no version of zlib matches (there is 1.3, 1.2)",
            }));
  EXPECT_EQ(trees[0].key_reason,
            "lib 1.5 | 1.4 (2 builds) needs zlib >=2, but no version of zlib matches (there is 1.3, 1.2)");
}

TEST(Explanation, PackagesNoChannelHasAreListedTogether) {
  ProblemGraph graph;
  graph.packages = {pkg("app", "1.0")};
  graph.jobs.push_back({ProblemGraph::JobKind::install, "app", {0}});
  for (const char* name : {"d", "c", "b", "a"}) graph.requirements.push_back({0, name, {}, false, {}});
  const auto trees = explain_problem(graph, {});
  ASSERT_EQ(trees.size(), 1u);
  EXPECT_EQ(trees[0].root.children.at(0).text,
            "app 1.0 0 needs a, b, c and more packages that are in none of the channels");
}

TEST(Explanation, SeveralReasonsBecomeChildrenWithoutRepeatingThePackage) {
  MachineFacts machine;
  machine.virtual_packages = {{"__cuda", "12.4", "0"}};
  ProblemGraph graph;
  graph.packages = {pkg("kernels", "2.0", "sm80_0"), pkg("other", "1.0")};
  graph.jobs.push_back({ProblemGraph::JobKind::install, "kernels", {0}});
  graph.requirements.push_back({0, "__cuda_arch >=8.0", {}, false, {}});
  graph.conflicts.push_back({ProblemGraph::ConflictKind::same_name, 0, 1, ""});
  const auto lines = render_tree(explain_problem(graph, machine).at(0).root);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], "└─ kernels 2.0 sm80_0");
  EXPECT_EQ(lines[2], "   ├─ needs __cuda_arch >=8.0, which the machine solved for does not have");
  EXPECT_EQ(lines[3], "   └─ cannot be installed together with other 1.0 0 (one kernels at a time)");
}

TEST(VirtualPackageText, WithoutTheMachinesOwnWordsTheSolverSpeaksPlainly) {
  MachineFacts machine;
  machine.platform = "linux-64";
  machine.virtual_packages = {{"__glibc", "2.17", "0"}};
  EXPECT_EQ(virtual_requirement_text(machine, {"app 1.0", "__glibc >=2.28", false, false}),
            "app 1.0 needs __glibc >=2.28 but the machine solved for has __glibc 2.17");
  EXPECT_EQ(virtual_requirement_text(machine, {"app 1.0", "__cuda <12", true, false}),
            "app 1.0 constrains __cuda <12, which linux-64 does not have");
}

TEST(VirtualPackageText, TheMachinesOwnWordsAreUsedWhenGiven) {
  MachineFacts machine;
  std::vector<VirtualRequirementFailure> asked;
  machine.explain_virtual_requirement = [&](const VirtualRequirementFailure& failure) {
    asked.push_back(failure);
    return std::string("worded by the machine");
  };
  EXPECT_EQ(virtual_requirement_text(machine, {"app 1.0", "__cuda >=12", true, true}), "worded by the machine");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].requirer, "app 1.0");
  EXPECT_EQ(asked[0].dependency, "__cuda >=12");
  EXPECT_TRUE(asked[0].is_constraint);
  EXPECT_TRUE(asked[0].other_builds_fit);
}

}  // namespace
}  // namespace gpuenv::solver
