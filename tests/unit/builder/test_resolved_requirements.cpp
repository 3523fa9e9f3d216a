// Requirements with their pins resolved at each stage of a build, the
// environments' run_exports appended and pin_run_as_build applied.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/builder/resolved_requirements.hpp"

namespace {

using gpuenv::build::environment_specs;
using gpuenv::build::final_requirements;
using gpuenv::recipe::Dependency;
using gpuenv::recipe::Pin;
using Specs = std::vector<std::string>;

Dependency spec(std::string text) {
  Dependency dependency;
  dependency.spec = std::move(text);
  return dependency;
}

Dependency pinned(Pin::Kind kind, std::string name, std::optional<std::string> upper = "x", bool exact = false) {
  Dependency dependency;
  Pin pin;
  pin.kind = kind;
  pin.name = std::move(name);
  pin.lower_bound = "x.x.x.x.x.x";
  pin.upper_bound = std::move(upper);
  pin.exact = exact;
  dependency.pin = pin;
  return dependency;
}

gpuenv::specs::PackageRecord record(std::string name, std::string version, std::string build) {
  gpuenv::specs::PackageRecord result;
  result.name = std::move(name);
  result.version = std::move(version);
  result.build = std::move(build);
  return result;
}

class ResolvedRequirements : public ::testing::Test {
 protected:
  ResolvedRequirements() {
    variant.output_name = "libb";
    variant.output_version = "2.0";
    variant.build_string = "h2_0";
    variant.outputs = {{"liba", "1.2.3", "h1_0"}, {"libb", "2.0", "h2_0"}};
  }
  gpuenv::recipe::Requirements& requirements() { return variant.recipe.requirements; }

  gpuenv::recipe::RenderedVariant variant;
  const std::vector<gpuenv::specs::PackageRecord> host = {record("zlib", "1.3.1", "h4_0"), record("numpy", "2.1.3", "py312h5_0")};
};

TEST_F(ResolvedRequirements, PinSubpackageInHostResolvesAgainstTheVariantsOutputs) {
  requirements().host = {spec("zlib"), pinned(Pin::Kind::subpackage, "liba", "x.x"),
                         pinned(Pin::Kind::subpackage, "liba", std::nullopt, true)};
  const auto specs = environment_specs(requirements().host, variant, "host");
  ASSERT_TRUE(specs) << specs.error().message;
  EXPECT_EQ(*specs, (Specs{"zlib", "liba >=1.2.3,<1.3.0a0", "liba ==1.2.3 h1_0"}));
}

TEST_F(ResolvedRequirements, PinCompatibleBeforeTheHostIsSolvedIsAnError) {
  requirements().host = {pinned(Pin::Kind::compatible, "zlib")};
  const auto specs = environment_specs(requirements().host, variant, "host");
  ASSERT_FALSE(specs);
  EXPECT_NE(specs.error().message.find("pin_compatible(zlib"), std::string::npos) << specs.error().message;
  EXPECT_NE(specs.error().message.find("belongs in run"), std::string::npos) << specs.error().message;
}

TEST_F(ResolvedRequirements, PinSubpackageOfAnUnknownOutputNamesTheOutputs) {
  requirements().run = {pinned(Pin::Kind::subpackage, "libz")};
  const auto resolved = final_requirements(variant, host, {}, {});
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().kind, gpuenv::build::BuildErrorKind::recipe);
  EXPECT_NE(resolved.error().message.find("no output named libz (its outputs: liba, libb)"), std::string::npos)
      << resolved.error().message;
}

TEST_F(ResolvedRequirements, PinCompatibleResolvesAgainstTheHostPackage) {
  requirements().run = {spec("python"), pinned(Pin::Kind::compatible, "numpy", "x.x")};
  requirements().run_constraints = {pinned(Pin::Kind::compatible, "zlib", std::nullopt, true)};
  const auto resolved = final_requirements(variant, host, {}, {});
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->run, (Specs{"python", "numpy >=2.1.3,<2.2.0a0"}));
  EXPECT_EQ(resolved->run_constraints, Specs{"zlib ==1.3.1 h4_0"});

  requirements().run = {pinned(Pin::Kind::compatible, "openssl")};
  const auto missing = final_requirements(variant, host, {}, {});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("openssl is not in the host environment"), std::string::npos)
      << missing.error().message;
}

TEST_F(ResolvedRequirements, OwnRunExportsHaveTheirPinsResolved) {
  requirements().run_exports.weak = {pinned(Pin::Kind::subpackage, "libb", "x.x")};
  requirements().run_exports.strong_constraints = {spec("libc <3")};
  const auto resolved = final_requirements(variant, host, {}, {});
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->run_exports.weak, Specs{"libb >=2.0,<2.1.0a0"});
  EXPECT_EQ(resolved->run_exports.strong_constrains, Specs{"libc <3"});
  EXPECT_TRUE(resolved->run_exports.noarch.empty());
}

TEST_F(ResolvedRequirements, ExportsComeAfterTheRecipesOwnWithoutDuplicates) {
  requirements().run = {spec("zzz"), spec("zlib >=1.3"), spec("zzz")};
  requirements().run_constraints = {spec("qqq <2")};
  gpuenv::build::AppliedRunExports exported;
  exported.run = {"zlib >=1.3", "zlib >=1.3,<2.0a0"};
  exported.run_constraints = {"aconstr <5"};
  const auto resolved = final_requirements(variant, host, exported, {});
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->run, (Specs{"zzz", "zlib >=1.3", "zlib >=1.3,<2.0a0"}));
  EXPECT_EQ(resolved->run_constraints, (Specs{"qqq <2", "aconstr <5"}));
}

TEST_F(ResolvedRequirements, PinRunAsBuildPinsBareRunRequirementsTheHostHolds) {
  requirements().run = {spec("numpy"), spec("zlib >=1"), spec("python")};
  gpuenv::build::RunAsBuildPins pins;
  pins["numpy"].max_pin = "x.x";
  pins["zlib"].max_pin = "x";
  pins["python"].max_pin = "x.x";  // not in the host environment: left as written
  const auto resolved = final_requirements(variant, host, {}, pins);
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->run, (Specs{"numpy >=2.1.3,<2.2.0a0", "zlib >=1", "python"}));

  pins["numpy"].min_pin = "x.x";
  pins["numpy"].max_pin = "x.x.x";
  EXPECT_EQ(final_requirements(variant, host, {}, pins)->run.front(), "numpy >=2.1,<2.1.4.0a0");
  pins["numpy"].max_pin = "y";
  const auto bad = final_requirements(variant, host, {}, pins);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("pin_run_as_build of numpy"), std::string::npos) << bad.error().message;
}

}  // namespace
