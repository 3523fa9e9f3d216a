// What a user may ask to install, update or remove (issue 9, item 13).
#include <gtest/gtest.h>

#include "gpuenv/environment/requested_spec.hpp"

namespace gpuenv::environment {
namespace {

TEST(RequestedSpec, ParsesPackageSpecs) {
  const specs::ChannelContext context;
  const auto spec = parse_requested_spec("numpy >=1.26", context);
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->name().str(), "numpy");
  EXPECT_TRUE(parse_requested_spec("conda-forge::cupy", context));
  EXPECT_TRUE(parse_requested_spec("numpy*", context));  // a glob that names something
}

TEST(RequestedSpec, RefusesEmptyBlankAndEverything) {
  const specs::ChannelContext context;
  for (const std::string text : {"", "   ", "\t"}) {
    const auto refused = parse_requested_spec(text, context);
    ASSERT_FALSE(refused) << text;
    EXPECT_NE(refused.error().find("is an empty package spec: name a package"), std::string::npos)
        << refused.error();
  }
  for (const std::string text : {"*", "*[version=1.0]", "* >=1"}) {
    const auto refused = parse_requested_spec(text, context);
    ASSERT_FALSE(refused) << text;
    EXPECT_NE(refused.error().find("matches every package name"), std::string::npos) << refused.error();
  }
  const auto broken = parse_requested_spec("numpy[[[", context);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().find("'numpy[[[' is not a package spec"), std::string::npos) << broken.error();
}

}  // namespace
}  // namespace gpuenv::environment
