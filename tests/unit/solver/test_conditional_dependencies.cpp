// CEP 43 conditional dependencies solved by libsolv (REL_COND): a condition
// on a virtual package is decided by the machine, one on a package by the
// solution; CEP 44 extras and CEP 45 flags in a record's dependencies are
// refused with words, never dropped.
#include <gtest/gtest.h>

#include "solver_fixture.hpp"
#include "support/conditional_test_channel.hpp"
#include "support/rattler_helper.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::solver {
namespace {

using testing::channel_subdir;
using testing::dists;
using testing::install;
using testing::joined_lines;
using testing::package;

specs::VirtualPackage virtual_package(std::string name, std::string version) {
  return {std::move(name), std::move(version), "0"};
}

// One noarch package serving CPU and GPU machines: cuda-cudart only when
// the machine has CUDA 12 or newer, a CPU library otherwise.
class GpuOrCpu : public ::testing::Test {
 protected:
  void load(const std::vector<specs::VirtualPackage>& machine) {
    database.add_records(
        {
            package("app", "1.0", "0", 0,
                    {"cuda-cudart[when=\"__cuda>=12\"]", "cpu-fallback[when=\"__unix and not_installed_thing\"]",
                     "openblas[when='python >=3.10 or __win']", "python"}),
            package("cuda-cudart", "12.4", "0"),
            package("cpu-fallback", "1.0", "0"),
            package("openblas", "0.3", "0"),
            package("python", "3.12", "0"),
            package("python", "3.9", "0"),
        },
        channel_subdir("https://repo.example/demo", "noarch"));
    database.set_installed({}, machine);
  }
  PackageDatabase database;
};

TEST_F(GpuOrCpu, AConditionOnTheMachineHoldsWithCuda12) {
  load({virtual_package("__cuda", "12.4"), virtual_package("__unix", "0")});
  const auto solution = solve(database, install({"app"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"app 1.0 0", "cuda-cudart 12.4 0", "openblas 0.3 0",
                                                             "python 3.12 0"}));
}

TEST_F(GpuOrCpu, AConditionOnTheMachineFailsWithoutADriverOrWithAnOldOne) {
  for (const auto& machine : {std::vector<specs::VirtualPackage>{virtual_package("__unix", "0")},
                              std::vector<specs::VirtualPackage>{virtual_package("__cuda", "11.8"),
                                                                 virtual_package("__unix", "0")}}) {
    load(machine);
    const auto solution = solve(database, install({"app"}));
    ASSERT_TRUE(solution) << joined_lines(solution.error());
    EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"app 1.0 0", "openblas 0.3 0", "python 3.12 0"}));
    database = PackageDatabase();
  }
}

// The solution decides a condition on a package: with python pinned below
// 3.10 (and no __win), openblas is not required, so it is not installed.
TEST_F(GpuOrCpu, AConditionOnAPackageIsDecidedByTheSolution) {
  load({virtual_package("__unix", "0")});
  const auto solution = solve(database, install({"app", "python<3.10"}));
  ASSERT_TRUE(solution) << joined_lines(solution.error());
  EXPECT_EQ(dists(solution->link), (std::vector<std::string>{"app 1.0 0", "python 3.9 0"}));
}

// What a solved record reports is the dependency as the channel wrote it,
// not libsolv's text of a REL_COND.
TEST_F(GpuOrCpu, ARecordKeepsItsConditionalDependenciesAsWritten) {
  load({virtual_package("__unix", "0")});
  const auto solution = solve(database, install({"app"}));
  ASSERT_TRUE(solution);
  const auto app = std::find_if(solution->link.begin(), solution->link.end(),
                                [](const specs::PackageRecord& r) { return r.name == "app"; });
  ASSERT_NE(app, solution->link.end());
  EXPECT_EQ(app->depends, (std::vector<std::string>{"cpu-fallback[when=\"__unix and not_installed_thing\"]",
                                                    "cuda-cudart[when=\"__cuda>=12\"]",
                                                    "openblas[when='python >=3.10 or __win']", "python"}));
}

TEST_F(GpuOrCpu, AConditionalRequestIsSolvedLikeAConditionalDependency) {
  load({virtual_package("__cuda", "12.4")});
  const auto with_cuda = solve(database, install({"python", "cuda-cudart[when=\"__cuda>=12\"]"}));
  ASSERT_TRUE(with_cuda) << joined_lines(with_cuda.error());
  EXPECT_EQ(dists(with_cuda->link), (std::vector<std::string>{"cuda-cudart 12.4 0", "python 3.12 0"}));
  const auto without = solve(database, install({"python", "cuda-cudart[when=\"__cuda>=13\"]"}));
  ASSERT_TRUE(without) << joined_lines(without.error());
  EXPECT_EQ(dists(without->link), (std::vector<std::string>{"python 3.12 0"}));
}

TEST(ConditionalDependencyRefusals, ExtrasAndFlagsInARecordLeaveItOutWithAReason) {
  PackageDatabase database;
  database.add_records({package("app", "2.0", "0", 0, {"lib[extras=[gpu]]"}),
                        package("app", "1.0", "0", 0, {"lib[flags=[cuda]]"}), package("lib", "1.0")},
                       channel_subdir("https://repo.example/demo", "noarch"));
  database.set_installed({}, {});
  const auto solution = solve(database, install({"app"}));
  ASSERT_FALSE(solution);
  const auto text = joined_lines(solution.error());
  EXPECT_NE(text.find("optional dependency groups (extras, CEP 44)"), std::string::npos) << text;
  EXPECT_NE(text.find("flags (CEP 45)"), std::string::npos) << text;
}

TEST(ConditionalDependencyRefusals, AConditionalConstraintLeavesItsRecordOut) {
  PackageDatabase database;
  database.add_records({package("tool", "1.0", "0", 0, {}, {"lib<0[when=\"__unix\"]"}), package("lib", "1.0")},
                       channel_subdir("https://repo.example/demo", "noarch"));
  database.set_installed({}, {virtual_package("__unix", "0")});
  const auto solution = solve(database, install({"tool"}));
  ASSERT_FALSE(solution);
  EXPECT_NE(joined_lines(solution.error()).find("on a constraint"), std::string::npos)
      << joined_lines(solution.error());
}

TEST(ConditionalDependencyRefusals, RequestedExtrasAreRefusedWithWhatToDo) {
  PackageDatabase database;
  database.add_records({package("lib", "1.0")}, channel_subdir("https://repo.example/demo", "noarch"));
  database.set_installed({}, {});
  const auto solution = solve(database, install({"lib[extras=[gpu]]"}));
  ASSERT_FALSE(solution);
  EXPECT_NE(solution.error().summary().find("extras, CEP 44"), std::string::npos) << solution.error().summary();
}

// CEP 45: a request's flags select among the builds by the records' flags.
TEST(Flags, ARequestSelectsTheBuildsCarryingEveryFlag) {
  PackageDatabase database;
  auto gpu = package("torch", "2.0", "gpu_0", 0);
  gpu.flags = {"cuda", "blas:mkl"};
  auto cpu = package("torch", "2.0", "cpu_0", 1);
  cpu.flags = {"blas:openblas"};
  database.add_records({gpu, cpu}, channel_subdir("https://repo.example/demo", "noarch"));
  database.set_installed({}, {});
  const auto plain = solve(database, install({"torch"}));
  ASSERT_TRUE(plain);
  EXPECT_EQ(dists(plain->link), std::vector<std::string>{"torch 2.0 cpu_0"});
  const auto flagged = solve(database, install({"torch[flags=[cuda, 'blas:*']]"}));
  ASSERT_TRUE(flagged) << joined_lines(flagged.error());
  EXPECT_EQ(dists(flagged->link), std::vector<std::string>{"torch 2.0 gpu_0"});
  EXPECT_EQ(flagged->link.front().flags, (std::vector<std::string>{"cuda", "blas:mkl"}));
}

// The same channel, machines and requests through rattler (py-rattler, which
// solves CEP 43 conditions with resolvo): the same packages. Skips, saying
// why, when py-rattler is missing.
TEST(ConditionalDifferential, GpuenvAndRattlerInstallTheSamePackages) {
  testing::TempDirectory dir;
  const auto channel = dir / "channel";
  testing::write_conditional_test_channel(channel);
  struct Case {
    std::vector<std::pair<std::string, std::string>> machine;
    std::vector<std::string> specs;
  };
  const std::vector<Case> cases = {
      {{{"__unix", "0"}, {"__linux", "6.1"}}, {"stencil"}},
      {{{"__unix", "0"}, {"__linux", "6.1"}, {"__cuda", "12.4"}}, {"stencil"}},
      {{{"__unix", "0"}, {"__linux", "6.1"}, {"__cuda", "11.8"}}, {"stencil", "python"}},
      {{{"__unix", "0"}, {"__linux", "6.1"}, {"__cuda", "12.4"}}, {"stencil", "python=3.9"}},
      {{{"__unix", "0"}, {"__cuda", "13.0"}}, {"stencil", "python>=3.10"}},
      {{{"__unix", "0"}, {"__linux", "6.1"}}, {"python", "numpy[when=\"__cuda>=12\"]"}},
      {{{"__unix", "0"}, {"__linux", "6.1"}, {"__cuda", "12.4"}}, {"python", "numpy[when=\"__cuda>=12\"]"}},
  };
  nlohmann::json requests = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json machine = nlohmann::json::array();
    for (const auto& [name, version] : c.machine) machine.push_back({name, version});
    requests.push_back({{"channel", channel.string()}, {"specs", c.specs}, {"virtual_packages", machine},
                        {"platform", "linux-64"}});
  }
  std::string why;
  const auto answers = testing::ask_python_helper("tests/unit/solver/rattler_conditional_solve.py", requests, true, why);
  if (answers.is_null()) GTEST_SKIP() << "py-rattler not available, differential test skipped: " << why;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(requests[i].dump());
    ASSERT_TRUE(answers[i].contains("packages")) << answers[i].dump();
    PackageDatabase database;
    for (const char* subdir : {"linux-64", "noarch"}) {
      const auto loaded = database.add_repodata(channel / subdir / "repodata.json",
                                                channel_subdir("file://" + channel.string(), subdir));
      ASSERT_TRUE(loaded) << loaded.error().message;
    }
    std::vector<specs::VirtualPackage> machine;
    for (const auto& [name, version] : cases[i].machine) machine.push_back(virtual_package(name, version));
    database.set_installed({}, machine);
    const auto solution = solve(database, install(cases[i].specs));
    ASSERT_TRUE(solution) << joined_lines(solution.error());
    EXPECT_EQ(dists(solution->link), answers[i]["packages"].get<std::vector<std::string>>());
  }
}

}  // namespace
}  // namespace gpuenv::solver
