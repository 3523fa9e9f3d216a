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
  EXPECT_EQ(lines[2], "   ├─ needs __cuda_arch >=8.0 but the driver sees no CUDA device: set CONDA_OVERRIDE_CUDA_ARCH "
                      "to solve for another machine");
  EXPECT_EQ(lines[3], "   └─ cannot be installed together with other 1.0 0 (one kernels at a time)");
}

TEST(VirtualPackageText, NamesTheDriverTheVersionNeededAndTheWayOut) {
  MachineFacts machine;
  machine.virtual_packages = {{"__cuda", "11.4", "0"}};
  machine.cuda = system::CudaReport{};
  machine.cuda->driver_release = "470.82";
  EXPECT_EQ(virtual_requirement_text("cupy 13.3", "__cuda >=12", machine, true),
            "cupy 13.3 needs __cuda >=12 but this driver (470.82, CUDA 11.4) is too old: upgrade the driver to "
            ">= 525.60.13 (CUDA 12.0), or ask for a CUDA 11 build (cuda-version 11.*)");
}

TEST(VirtualPackageText, SaysWhereDetectionLookedWhenThereIsNoDriver) {
  MachineFacts machine;
  machine.cuda = system::CudaReport{};
  machine.cuda->status = system::DetectionStatus::no_library;
  machine.cuda->searched = {"a", "b", "c", "d", "e", "f"};
  EXPECT_EQ(virtual_requirement_text("cupy 13.3", "__cuda >=12", machine, false),
            "cupy 13.3 needs __cuda >=12 but no NVIDIA driver found: looked in a, b, c, d and 2 more; set "
            "CONDA_OVERRIDE_CUDA to solve for another machine");
  machine.cuda->status = system::DetectionStatus::timed_out;
  machine.cuda->message = "the driver did not answer within 10 s";
  EXPECT_EQ(virtual_requirement_text("cupy 13.3", "__cuda >=12", machine, false),
            "cupy 13.3 needs __cuda >=12 but the NVIDIA driver cannot be used (the driver did not answer within "
            "10 s); set CONDA_OVERRIDE_CUDA to solve for another machine");
  MachineFacts emptied;
  emptied.cuda_override = "";
  EXPECT_NE(virtual_requirement_text("x 1", "__cuda", emptied, false).find("CONDA_OVERRIDE_CUDA is set empty"),
            std::string::npos);
}

TEST(VirtualPackageText, OtherVirtualPackages) {
  MachineFacts machine;
  machine.platform = "linux-64";
  machine.virtual_packages = {{"__glibc", "2.17", "0"}};
  EXPECT_EQ(virtual_requirement_text("app 1.0", "__glibc >=2.28", machine, false),
            "app 1.0 needs __glibc >=2.28 but this system's glibc is 2.17: set CONDA_OVERRIDE_GLIBC to solve for "
            "another machine");
  EXPECT_EQ(virtual_requirement_text("app 1.0", "__osx >=11", machine, true),
            "app 1.0 needs __osx >=11, which linux-64 does not have, or ask for another build of it");
}

}  // namespace
}  // namespace gpuenv::solver
