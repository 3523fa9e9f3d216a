// Environment names and prefix paths, as conda checks them (issue 9, item 12).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/environment/environment_name.hpp"

namespace gpuenv::environment {
namespace {

TEST(EnvironmentName, AcceptsWhatCondaAccepts) {
  for (const std::string name : {"myenv", "py3.12", "cuda-12_x", "a+b", "ÜNICODE"}) {
    EXPECT_TRUE(check_environment_name(name)) << name;
  }
}

TEST(EnvironmentName, RefusesWhatCondaRefusesAndControlCharacters) {
  const std::vector<std::string> names = {"",         "  ",           ".",
                                          "..",       "a/b",          "a\\b",
                                          "a b",      "a:b",          "a#b",
                                          "a\nb",    "a\tb",        "a\x7f" "b",
                                          std::string("a\0b", 3)};
  for (const auto& name : names) {
    const auto checked = check_environment_name(name);
    ASSERT_FALSE(checked) << name;
    EXPECT_EQ(checked.error().kind, ErrorKind::usage);
    EXPECT_NE(checked.error().message.find("is not a valid environment name"), std::string::npos)
        << checked.error().message;
    // The message never carries the control character itself.
    for (const char c : checked.error().message) EXPECT_FALSE(c == '\n' || c == '\t' || c == '\x7f' || c == '\0');
  }
  EXPECT_NE(check_environment_name("a:b").error().message.find("position 2"), std::string::npos);
  EXPECT_NE(check_environment_name("a/b").error().message.find("-p"), std::string::npos);
}

TEST(EnvironmentName, BaseAndRootAreTheRootPrefix) {
  EXPECT_TRUE(is_reserved_environment_name("base"));
  EXPECT_TRUE(is_reserved_environment_name("root"));
  EXPECT_FALSE(is_reserved_environment_name("based"));
}

TEST(PrefixForPath, AColonWouldSplitPath) {
  EXPECT_TRUE(check_prefix_for_path("/home/me/envs/x"));
  const auto refused = check_prefix_for_path("/home/me/a:b");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("cannot contain ':'"), std::string::npos) << refused.error().message;
}

}  // namespace
}  // namespace gpuenv::environment
