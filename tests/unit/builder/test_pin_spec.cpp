// pin_subpackage / pin_compatible into match specs. The expected specs are
// what rattler-build 0.73 (py-rattler-build) wrote into index.json and
// run_exports.json for the same pins and versions.
#include <gtest/gtest.h>

#include <string>

#include "gpuenv/builder/pin_spec.hpp"

namespace {

using gpuenv::build::pin_to_spec;
using gpuenv::recipe::Pin;

Pin pin(const char* name, std::optional<std::string> lower, std::optional<std::string> upper) {
  Pin result;
  result.name = name;
  result.lower_bound = std::move(lower);
  result.upper_bound = std::move(upper);
  return result;
}

std::string spec(const Pin& each, const std::string& version, const std::string& build = "h0_0") {
  auto resolved = pin_to_spec(each, version, build);
  EXPECT_TRUE(resolved) << resolved.error().message;
  return resolved ? *resolved : "";
}

constexpr const char* kDefaultLower = "x.x.x.x.x.x";

TEST(PinSpec, UpperBoundIncrementsTheLastKeptSegmentAndAddsAnAlpha) {
  EXPECT_EQ(spec(pin("liba", kDefaultLower, "x.x"), "1.2.3"), "liba >=1.2.3,<1.3.0a0");
  EXPECT_EQ(spec(pin("liba", kDefaultLower, "x"), "1.2.3"), "liba >=1.2.3,<2.0a0");
  EXPECT_EQ(spec(pin("liba", "x.x", "x.x.x"), "1.2.3"), "liba >=1.2,<1.2.4.0a0");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x"), "2024.1"), "p >=2024.1,<2024.2.0a0");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x"), "2024.1"), "p >=2024.1,<2025.0a0");
}

TEST(PinSpec, ShortVersionsAreExtendedWithZerosForTheUpperBoundOnly) {
  EXPECT_EQ(spec(pin("liba", kDefaultLower, "x.x.x.x.x"), "1.2.3"), "liba >=1.2.3,<1.2.3.0.1.0a0");
  EXPECT_EQ(spec(pin("p", "x.x", "x.x.x"), "1.2"), "p >=1.2,<1.2.1.0a0");
  EXPECT_EQ(spec(pin("p", "x.x.x.x", std::nullopt), "1.2"), "p >=1.2");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x"), "1.2.3.4.5.6.7"), "p >=1.2.3.4.5.6,<1.3.0a0");
}

TEST(PinSpec, AbsentBoundsAndLiteralVersions) {
  EXPECT_EQ(spec(pin("liba", std::nullopt, "x"), "1.2.3"), "liba <2.0a0");
  EXPECT_EQ(spec(pin("liba", kDefaultLower, std::nullopt), "1.2.3"), "liba >=1.2.3");
  EXPECT_EQ(spec(pin("liba", std::nullopt, std::nullopt), "1.2.3"), "liba");
  EXPECT_EQ(spec(pin("liba", "1.0", "3.0"), "1.2.3"), "liba >=1.0,<3.0");
}

TEST(PinSpec, ExactPinsVersionAndBuildString) {
  Pin exact = pin("liba", kDefaultLower, "x");
  exact.exact = true;
  EXPECT_EQ(spec(exact, "1.2.3", "hb0f4dca_0"), "liba ==1.2.3 hb0f4dca_0");
}

TEST(PinSpec, AlphanumericSegments) {
  // A pre-release segment keeps its letters as "a" and needs no added alpha.
  EXPECT_EQ(spec(pin("b", kDefaultLower, "x.x"), "2.0a1.post3"), "b >=2.0a1.post3,<2.0a2");
  EXPECT_EQ(spec(pin("b", kDefaultLower, "x"), "2.0a1.post3"), "b >=2.0a1.post3,<3.0a0");
  EXPECT_EQ(spec(pin("b", kDefaultLower, "x.x.x"), "2.0a1.post3"), "b >=2.0a1.post3,<2.0a1.post4.0a0");
  EXPECT_EQ(spec(pin("c", kDefaultLower, "x.x"), "9d.4b_1"), "c >=9d.4b_1,<9d.5a");
  EXPECT_EQ(spec(pin("c", kDefaultLower, "x"), "9d.4b_1"), "c >=9d.4b_1,<10a");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x"), "1.0rc1"), "p >=1.0rc1,<1.0a2");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x"), "1.1l"), "p >=1.1l,<1.2a");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x"), "1.alpha"), "p >=1.alpha,<1.1a");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x.x"), "1.alpha"), "p >=1.alpha,<1.alpha.1.0a0");
  EXPECT_EQ(spec(pin("p", "x.x", "x.x.x"), "1.2.dev3"), "p >=1.2,<1.2.dev4.0a0");
  EXPECT_EQ(spec(pin("p", "x.x", "x.x.x"), "0.4.1.post2"), "p >=0.4,<0.4.2.0a0");
}

TEST(PinSpec, EpochUnderscoresAndLocalVersions) {
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x"), "1!2.3"), "p >=1!2.3,<1!2.4.0a0");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x"), "1!2.3"), "p >=1!2.3,<1!3.0a0");
  EXPECT_EQ(spec(pin("p", "x.x", "x.x.x"), "1.2.3+4.5"), "p >=1.2+4.5,<1.2.4.0a0");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x"), "3.0.0_1"), "p >=3.0.0_1,<3.1.0a0");
  EXPECT_EQ(spec(pin("p", "x.x", "x.x.x"), "3.0.0_1"), "p >=3.0,<3.0.1.0a0");
  EXPECT_EQ(spec(pin("p", "x.x.x.x", std::nullopt), "3.0.0_1"), "p >=3.0.0_1");
}

TEST(PinSpec, MalformedBoundsAreRecipeErrorsNamingThePin) {
  for (const char* bound : {"x.y", "", "x..x", ">=1.0", "1.0 2"}) {
    const auto resolved = pin_to_spec(pin("liba", kDefaultLower, bound), "1.2.3", "h0_0");
    ASSERT_FALSE(resolved) << bound;
    EXPECT_EQ(resolved.error().kind, gpuenv::build::BuildErrorKind::recipe);
    EXPECT_NE(resolved.error().message.find("liba"), std::string::npos) << resolved.error().message;
    EXPECT_NE(resolved.error().message.find("upper_bound"), std::string::npos) << resolved.error().message;
  }
  // A valid expression of absurd length would pad the version with zeros.
  std::string long_expression = "x";
  for (int i = 0; i < 5000; ++i) long_expression += ".x";
  EXPECT_FALSE(pin_to_spec(pin("liba", kDefaultLower, long_expression), "1.2.3", "h0_0"));
}

TEST(PinSpec, LargeNumbersAndLeadingZerosIncrementAsNumbers) {
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x"), "99999999999999999999999.1"),
            "p >=99999999999999999999999.1,<100000000000000000000000.0a0");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x"), "1.09"), "p >=1.09,<1.10.0a0");
  EXPECT_EQ(spec(pin("p", kDefaultLower, "x.x"), "1.009"), "p >=1.009,<1.10.0a0");
}

TEST(PinSpec, AVersionThatIsNoVersionIsAnError) {
  const auto resolved = pin_to_spec(pin("liba", kDefaultLower, "x"), "1..2", "h0_0");
  ASSERT_FALSE(resolved);
  EXPECT_NE(resolved.error().message.find("1..2"), std::string::npos) << resolved.error().message;
}

}  // namespace
