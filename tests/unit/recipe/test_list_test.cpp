// info/tests/tests.yaml: a recipe's rendered tests written in the recipe's
// own syntax and read back unchanged, every kind, awkward text included;
// damaged files are refused with the file named.
#include <gtest/gtest.h>

#include <string>

#include "gpuenv/recipe/recipe.hpp"
#include "gpuenv/recipe/test_list.hpp"

namespace {

using gpuenv::recipe::TestElement;

const char* const recipe_with_tests = R"(package:
  name: demo
  version: "1.0"
tests:
  - script:
      - echo "quoted \"text\"" and 'single' $PREFIX
      - 'test -f "$PREFIX/share/demo: colon"'
    requirements:
      run:
        - bash >=5
      build:
        - make
    files:
      source:
        - tests/
      recipe:
        - run_me.sh
  - script:
      interpreter: bash
      env:
        GREETING: "hi # there"
      content:
        - echo "$GREETING"
  - python:
      imports:
        - demo
        - demo.sub
      pip_check: false
  - package_contents:
      files:
        exists:
          - share/demo/*.txt
        not_exists:
          - "**/*.pyc"
      bin:
        - demo
      lib:
        - demo
      include:
        - demo.h
      site_packages:
        - demo
      strict: true
  - downstream: demo-user
)";

TEST(TestList, RoundTripsEveryKind) {
  const auto recipe = gpuenv::recipe::parse_recipe(recipe_with_tests, "recipe.yaml");
  ASSERT_TRUE(recipe) << recipe.error().message;
  const auto text = gpuenv::recipe::test_list_yaml(recipe->tests);
  const auto read = gpuenv::recipe::parse_test_list(text, "info/tests/tests.yaml");
  ASSERT_TRUE(read) << read.error().message << "\n" << text;
  ASSERT_EQ(read->size(), 5u) << text;
  const auto& script = (*read)[0].script;
  EXPECT_EQ((*read)[0].kind, TestElement::Kind::script);
  ASSERT_EQ(script.script.content.size(), 2u);
  EXPECT_EQ(script.script.content[0], recipe->tests[0].script.script.content[0]);
  EXPECT_EQ(script.script.content[1], "test -f \"$PREFIX/share/demo: colon\"");
  ASSERT_EQ(script.run_requirements.size(), 1u);
  EXPECT_EQ(script.run_requirements[0].spec, "bash >=5");
  ASSERT_EQ(script.build_requirements.size(), 1u);
  EXPECT_EQ(script.source_files, std::vector<std::string>{"tests/"});
  EXPECT_EQ(script.recipe_files, std::vector<std::string>{"run_me.sh"});
  EXPECT_EQ((*read)[1].script.script.env.at("GREETING"), "hi # there");
  EXPECT_EQ((*read)[1].script.script.interpreter, "bash");
  EXPECT_EQ((*read)[2].kind, TestElement::Kind::python);
  EXPECT_EQ((*read)[2].python.imports, (std::vector<std::string>{"demo", "demo.sub"}));
  EXPECT_FALSE((*read)[2].python.pip_check);
  const auto& contents = (*read)[3].package_contents;
  EXPECT_EQ(contents.files, std::vector<std::string>{"share/demo/*.txt"});
  EXPECT_EQ(contents.files_not_existing, std::vector<std::string>{"**/*.pyc"});
  EXPECT_EQ(contents.bin, std::vector<std::string>{"demo"});
  EXPECT_EQ(contents.site_packages, std::vector<std::string>{"demo"});
  EXPECT_TRUE(contents.strict);
  EXPECT_EQ((*read)[4].kind, TestElement::Kind::downstream);
  EXPECT_EQ((*read)[4].downstream, "demo-user");
  // Writing what was read gives the same text.
  EXPECT_EQ(gpuenv::recipe::test_list_yaml(*read), text);
}

TEST(TestList, NoTestsIsAnEmptyList) {
  const auto read = gpuenv::recipe::parse_test_list(gpuenv::recipe::test_list_yaml({}), "tests.yaml");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->empty());
}

TEST(TestList, DamagedFilesAreRefusedNamingTheFile) {
  for (const std::string text : {"- script: [unclosed\n", "- nonsense: 1\n", "tests: not a list\n"}) {
    const auto read = gpuenv::recipe::parse_test_list(text, "pkg.conda:info/tests/tests.yaml");
    ASSERT_FALSE(read) << text;
    EXPECT_NE(read.error().message.find("pkg.conda:info/tests/tests.yaml"), std::string::npos) << read.error().message;
  }
  const auto huge = gpuenv::recipe::parse_test_list(std::string(2u << 20, ' '), "big/tests.yaml");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("big/tests.yaml"), std::string::npos);
}

}  // namespace
