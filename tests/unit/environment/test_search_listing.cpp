// `gpuenv search`'s listing: conda's order (names alphabetically, each
// name's records oldest first) and conda's --json shape.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuenv/environment/search.hpp"

namespace gpuenv::environment {
namespace {

specs::PackageRecord record(std::string name, std::string version) {
  specs::PackageRecord made;
  made.name = std::move(name);
  made.set_version(version);
  made.build = "0";
  made.subdir = "linux-64";
  return made;
}

// search() hands the records newest first, names interleaved.
const std::vector<specs::PackageRecord> kNewestFirst = {record("zlib", "1.3"), record("numpy", "2.1"),
                                                        record("zlib", "1.2"), record("numpy", "1.26")};

TEST(SearchListing, NamesAlphabeticallyEachOldestFirst) {
  std::vector<std::string> listed;
  for (const auto* each : oldest_first(kNewestFirst)) listed.push_back(each->name + " " + each->version);
  EXPECT_EQ(listed, (std::vector<std::string>{"numpy 1.26", "numpy 2.1", "zlib 1.2", "zlib 1.3"}));
  EXPECT_TRUE(oldest_first({}).empty());
}

TEST(SearchListing, TheJsonGroupsRecordsByNameOldestFirst) {
  const auto document = nlohmann::json::parse(conda_search_json(kNewestFirst));
  ASSERT_TRUE(document.is_object());
  ASSERT_EQ(document.size(), 2u);
  ASSERT_EQ(document.at("numpy").size(), 2u);
  EXPECT_EQ(document.at("numpy")[0].at("version"), "1.26");
  EXPECT_EQ(document.at("numpy")[1].at("version"), "2.1");
  EXPECT_EQ(document.at("zlib")[1].at("version"), "1.3");
  EXPECT_EQ(document.at("zlib")[1].at("name"), "zlib");
  EXPECT_EQ(conda_search_json({}), "{}");
}

}  // namespace
}  // namespace gpuenv::environment
