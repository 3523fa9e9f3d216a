// The words for a failed requirement on a virtual package: what detection
// found, which driver a requirement needs, and the way out.
#include <gtest/gtest.h>

#include "gpuenv/system/virtual_package_explanation.hpp"

namespace gpuenv::system {
namespace {

TEST(VirtualPackageText, NamesTheDriverTheVersionNeededAndTheWayOut) {
  MachineDescription machine;
  machine.virtual_packages = {{"__cuda", "11.4", "0"}};
  machine.cuda = CudaReport{};
  machine.cuda->driver_release = "470.82";
  EXPECT_EQ(explain_virtual_requirement(machine, {"cupy 13.3", "__cuda >=12", VirtualRequirementKind::needs, true}),
            "cupy 13.3 needs __cuda >=12 but this driver (470.82, CUDA 11.4) is too old: upgrade the driver to "
            ">= 525.60.13 (CUDA 12.0), or ask for a CUDA 11 build (cuda-version 11.*)");
}

TEST(VirtualPackageText, SaysWhereDetectionLookedWhenThereIsNoDriver) {
  MachineDescription machine;
  machine.cuda = CudaReport{};
  machine.cuda->status = DetectionStatus::no_library;
  machine.cuda->searched = {"a", "b", "c", "d", "e", "f"};
  EXPECT_EQ(explain_virtual_requirement(machine, {"cupy 13.3", "__cuda >=12", VirtualRequirementKind::needs, false}),
            "cupy 13.3 needs __cuda >=12 but no NVIDIA driver found: looked in a, b, c, d and 2 more; set "
            "CONDA_OVERRIDE_CUDA to solve for another machine");
  machine.cuda->status = DetectionStatus::timed_out;
  machine.cuda->message = "the driver did not answer within 10 s";
  EXPECT_EQ(explain_virtual_requirement(machine, {"cupy 13.3", "__cuda >=12", VirtualRequirementKind::needs, false}),
            "cupy 13.3 needs __cuda >=12 but the NVIDIA driver cannot be used (the driver did not answer within "
            "10 s); set CONDA_OVERRIDE_CUDA to solve for another machine");
  MachineDescription emptied;
  emptied.cuda_override = "";
  EXPECT_NE(explain_virtual_requirement(emptied, {"x 1", "__cuda", VirtualRequirementKind::needs, false}).find("CONDA_OVERRIDE_CUDA is set empty"),
            std::string::npos);
}

TEST(VirtualPackageText, OtherVirtualPackages) {
  MachineDescription machine;
  machine.platform = "linux-64";
  machine.virtual_packages = {{"__glibc", "2.17", "0"}};
  EXPECT_EQ(explain_virtual_requirement(machine, {"app 1.0", "__glibc >=2.28", VirtualRequirementKind::needs, false}),
            "app 1.0 needs __glibc >=2.28 but this system's glibc is 2.17: set CONDA_OVERRIDE_GLIBC to solve for "
            "another machine");
  EXPECT_EQ(explain_virtual_requirement(machine, {"app 1.0", "__osx >=11", VirtualRequirementKind::needs, true}),
            "app 1.0 needs __osx >=11, which linux-64 does not have, or ask for another build of it");
}

// conda's own tests intend `constrains: [__cuda >=11.0,<12]` to be
// unsatisfiable on a CUDA 12 driver: the driver is too new for it, and it
// is a constraint, not a need.
TEST(VirtualPackageText, AnUpperBoundSaysTheDriverIsTooNewNotTooOld) {
  MachineDescription machine;
  machine.virtual_packages = {{"__cuda", "12.4", "0"}};
  machine.cuda = CudaReport{};
  machine.cuda->driver_release = "550.54.14";
  EXPECT_EQ(explain_virtual_requirement(
                machine, {"cudatoolkit 11.8 h0", "__cuda >=11.0,<12", VirtualRequirementKind::constrains, true}),
            "cudatoolkit 11.8 h0 constrains __cuda >=11.0,<12 but this driver (550.54.14, CUDA 12.4) is newer than "
            "that allows: ask for a CUDA 12 build (cuda-version 12.*), or set CONDA_OVERRIDE_CUDA to solve for "
            "another machine");
  EXPECT_EQ(explain_virtual_requirement(machine, {"old 1.0", "__cuda <11", VirtualRequirementKind::needs, false}),
            "old 1.0 needs __cuda <11 but this driver (550.54.14, CUDA 12.4) is newer than that allows: set "
            "CONDA_OVERRIDE_CUDA to solve for another machine");
}

TEST(VirtualPackageText, ALowerBoundConstraintSaysConstrainsAndNamesTheDriverToGet) {
  MachineDescription machine;
  machine.virtual_packages = {{"__cuda", "11.4", "0"}};
  EXPECT_EQ(explain_virtual_requirement(
                machine, {"cuda-version 12.6", "__cuda >=12", VirtualRequirementKind::constrains, false}),
            "cuda-version 12.6 constrains __cuda >=12 but this driver (CUDA 11.4) is too old: upgrade the driver to "
            ">= 525.60.13 (CUDA 12.0)");
}

}  // namespace
}  // namespace gpuenv::system
