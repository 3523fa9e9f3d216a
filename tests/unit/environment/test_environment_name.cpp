// Environment names and prefix paths, as conda checks them (issue 9, item 12).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/environment/environment_name.hpp"
#include "gpuenv/environment/prefix_location.hpp"

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

TEST(NewEnvironmentPrefix, TheFilesNameIsUsedOnlyWithoutPOrN) {
  const auto env = util::fixed_environment({{"GPUENV_ROOT_PREFIX", "/opt/gpuenv-root"}});
  const auto from_file = resolve_new_environment_prefix({}, "from-file", env);
  ASSERT_TRUE(from_file) << from_file.error().message;
  EXPECT_EQ(*from_file, *resolve_prefix({"", "from-file"}, env, WhenNoPrefixGiven::refuse));
  EXPECT_EQ(from_file->filename(), "from-file");
  const auto named = resolve_new_environment_prefix({"", "mine"}, "from-file", env);
  ASSERT_TRUE(named);
  EXPECT_EQ(named->filename(), "mine");
  const auto at_path = resolve_new_environment_prefix({"/srv/envs/x", ""}, "from-file", env);
  ASSERT_TRUE(at_path);
  EXPECT_EQ(*at_path, "/srv/envs/x");
}

TEST(NewEnvironmentPrefix, ReservedNamesUnusablePathsAndNoWhereAtAllAreRefused) {
  const auto env = util::fixed_environment({{"GPUENV_ROOT_PREFIX", "/opt/gpuenv-root"}});
  for (const auto& [choice, file_name] : std::vector<std::pair<PrefixChoice, std::string>>{
           {{"", "base"}, ""}, {{}, "root"}}) {
    const auto refused = resolve_new_environment_prefix(choice, file_name, env);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, ErrorKind::usage);
    EXPECT_NE(refused.error().message.find("is a reserved environment name"), std::string::npos)
        << refused.error().message;
  }
  const auto colon = resolve_new_environment_prefix({"/srv/a:b", ""}, "", env);
  ASSERT_FALSE(colon);
  EXPECT_NE(colon.error().message.find("cannot contain ':'"), std::string::npos) << colon.error().message;
  const auto nowhere = resolve_new_environment_prefix({}, "", env);
  ASSERT_FALSE(nowhere);
  EXPECT_EQ(nowhere.error().kind, ErrorKind::usage);
  EXPECT_NE(nowhere.error().message.find("-p PREFIX or -n NAME"), std::string::npos) << nowhere.error().message;
}

}  // namespace
}  // namespace gpuenv::environment
