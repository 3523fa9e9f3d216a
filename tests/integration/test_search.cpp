// `gpuenv search` end to end on local channels.
#include <gtest/gtest.h>

#include "solve_cli_fixture.hpp"

namespace {

using gpuenv::testing::parse_json;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::SolveCliMachine;
using gpuenv::testing::test_channel;

const std::string recipes = test_channel("channels/conda-test-recipes");

TEST(Search, ListsMatchesLikeCondaSearch) {
  SolveCliMachine machine;
  const auto result = run_gpuenv({"search", "-c", recipes, "--override-channels", "dependen*"}, machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Names in order, each name's versions oldest first.
  const auto d1 = result.out.find("dependency");
  const auto d2 = result.out.find("dependency", d1 + 1);
  const auto e1 = result.out.find("dependent ");
  ASSERT_NE(d1, std::string::npos) << result.out;
  ASSERT_NE(d2, std::string::npos) << result.out;
  ASSERT_NE(e1, std::string::npos) << result.out;
  EXPECT_LT(d2, e1) << result.out;
  EXPECT_LT(result.out.find("1.0", d1), result.out.find("2.0", d1)) << result.out;
  EXPECT_EQ(result.out.rfind("# Name", 0), 0u) << result.out;
}

TEST(Search, JsonGroupsRecordsByName) {
  SolveCliMachine machine;
  const auto result =
      run_gpuenv({"search", "-c", recipes, "--override-channels", "--json", "dependent>=2"}, machine.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse_json(result);
  ASSERT_TRUE(document.contains("dependent"));
  ASSERT_EQ(document["dependent"].size(), 1u);
  const auto& record = document["dependent"][0];
  EXPECT_EQ(record["version"], "2.0");
  EXPECT_EQ(record["depends"], nlohmann::json::array({"dependency >=2.0,<3.0a0"}));
  EXPECT_EQ(record["fn"], "dependent-2.0-0.conda");
  EXPECT_EQ(record["url"], "file://" + recipes + "/noarch/dependent-2.0-0.conda");
}

TEST(Search, NothingFoundIsAnError) {
  SolveCliMachine machine;
  const auto text = run_gpuenv({"search", "-c", recipes, "--override-channels", "nothing-like-this"}, machine.env());
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.err.find("no package matches nothing-like-this"), std::string::npos) << text.err;
  const auto json = run_gpuenv({"search", "-c", recipes, "--override-channels", "--json", "nothing-like-this"},
                               machine.env());
  EXPECT_EQ(json.exit_code, 1);
  const auto document = parse_json(json);
  EXPECT_EQ(document["success"], false);
  EXPECT_EQ(document["exception_name"], "PackagesNotFoundError");
}

TEST(Search, BadRepodataNamesTheFileAndTheOffset) {
  SolveCliMachine machine;
  gpuenv::testing::write_text_file(machine / "broken/noarch/repodata.json", "{\"packages\": {\"a-1-0.tar.bz2\": [}");
  const auto result =
      run_gpuenv({"search", "-c", (machine / "broken").string(), "--override-channels", "a"}, machine.env());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("broken/noarch/repodata.json"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("at byte"), std::string::npos) << result.err;
}

}  // namespace
