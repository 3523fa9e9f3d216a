// `gpuenv cuda --when`: CEP 43 conditions decided on the machine alone,
// where a package named in a condition is decided by a solve, not here.
#include <gtest/gtest.h>

#include "gpuenv/environment/conditional_dependencies.hpp"

namespace gpuenv::environment {
namespace {

system::MachineDescription machine_with_cuda(std::string version) {
  system::MachineDescription machine;
  machine.platform = "linux-64";
  machine.virtual_packages = {{"__linux", "6.1", "0"}, {"__cuda", std::move(version), "0"}};
  machine.cuda_override = machine.virtual_packages.back().version;
  return machine;
}

TEST(MachineConditions, AVirtualPackageConditionIsDecidedByTheMachine) {
  const auto decided = decide_conditions_on_machine({"__cuda>=12", "__cuda<12"}, machine_with_cuda("12.4"));
  ASSERT_TRUE(decided) << decided.error();
  ASSERT_EQ(decided->size(), 2u);
  EXPECT_EQ((*decided)[0].condition, "__cuda>=12");
  EXPECT_TRUE((*decided)[0].held);
  EXPECT_EQ((*decided)[0].line(), "__cuda>=12: holds (__cuda 12.4 is on this machine (CONDA_OVERRIDE_CUDA=12.4))");
  EXPECT_FALSE((*decided)[1].held);
  EXPECT_EQ((*decided)[1].line(),
            "__cuda<12: does not hold (__cuda 12.4 is on this machine, not __cuda<12 (CONDA_OVERRIDE_CUDA=12.4))");
}

TEST(MachineConditions, APackageInAConditionReadsAsAbsentAndSaysASolveDecidesIt) {
  const auto decided = decide_conditions_on_machine({"__linux and python>=3.10"}, machine_with_cuda("12.4"));
  ASSERT_TRUE(decided) << decided.error();
  ASSERT_EQ(decided->size(), 1u);
  EXPECT_FALSE((*decided)[0].held);
  ASSERT_EQ((*decided)[0].facts.size(), 2u);
  EXPECT_EQ((*decided)[0].facts[1],
            "python is not in the environment (a package is decided by a solve, not the machine)");
}

TEST(MachineConditions, AMalformedConditionIsAnErrorNotAnOutcome) {
  const auto decided = decide_conditions_on_machine({"__cuda>=12", "__cuda>=12 and"}, machine_with_cuda("12.4"));
  ASSERT_FALSE(decided);
  EXPECT_FALSE(decided.error().empty());
}

TEST(MachineConditions, NoConditionsDecideNothing) {
  const auto decided = decide_conditions_on_machine({}, machine_with_cuda("12.4"));
  ASSERT_TRUE(decided);
  EXPECT_TRUE(decided->empty());
}

}  // namespace
}  // namespace gpuenv::environment
