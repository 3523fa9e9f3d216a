// `gpuenv inspect --json`: one entry per file read, one per file that was
// not, and the entries only when asked for.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cuda_binary_test_support.hpp"
#include "gpuenv/cuda_binary/listing_json.hpp"

namespace gpuenv::cuda_binary {
namespace {

using testing::committed_binary;

TEST(ListingJson, ReadFilesAreListedWithTheirTargetsAndUnreadOnesWithWhy) {
  const std::vector<std::string> paths = {committed_binary("libadd_sm90.so").string(), "/nonexistent/libnone.so"};
  const auto results = read_device_code(paths, {}, 1);
  ASSERT_EQ(results.size(), 2u);
  const auto document = nlohmann::json::parse(inspect_report_json(results, false, false));
  EXPECT_EQ(document.at("success"), false);
  ASSERT_EQ(document.at("files").size(), 1u);
  const auto& file = document.at("files")[0];
  EXPECT_EQ(file.at("path"), paths[0]);
  EXPECT_EQ(file.at("sass"), nlohmann::json::array({"sm_90"}));
  EXPECT_EQ(file.at("entry_count"), results[0]->entries.size());
  EXPECT_FALSE(file.contains("entries"));
  ASSERT_EQ(document.at("errors").size(), 1u);
  EXPECT_EQ(document.at("errors")[0].at("path"), "/nonexistent/libnone.so");
  EXPECT_FALSE(document.at("errors")[0].at("message").get<std::string>().empty());
}

TEST(ListingJson, EntriesAreListedWhenAsked) {
  const auto results = read_device_code({committed_binary("libadd_sm90.so").string()}, {}, 1);
  const auto document = nlohmann::json::parse(inspect_report_json(results, true, true));
  EXPECT_EQ(document.at("success"), true);
  const auto& entries = document.at("files")[0].at("entries");
  ASSERT_EQ(entries.size(), results[0]->entries.size());
  EXPECT_EQ(entries[0].at("kind"), to_string(results[0]->entries[0].kind));
  EXPECT_TRUE(entries[0].contains("container_offset"));
  EXPECT_EQ(document.at("errors"), nlohmann::json::array());
}

}  // namespace
}  // namespace gpuenv::cuda_binary
