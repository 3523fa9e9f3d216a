// `gpuenv list`'s selection by name and its conda-shaped --json.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/environment/installed_environment.hpp"

namespace gpuenv::environment {
namespace {

prefix::PrefixRecord installed(std::string name, std::string version, std::string build) {
  prefix::PrefixRecord record;
  record.package.name = std::move(name);
  record.package.set_version(version);
  record.package.build = std::move(build);
  record.package.build_number = 3;
  record.package.channel = "https://conda.anaconda.org/conda-forge";
  record.package.subdir = "linux-64";
  return record;
}

std::vector<std::string> names(const std::vector<const prefix::PrefixRecord*>& records) {
  std::vector<std::string> out;
  for (const auto* record : records) out.push_back(record->package.name);
  return out;
}

const std::vector<prefix::PrefixRecord> kRecords = {installed("cuda-cudart", "12.4.127", "h0_3"),
                                                    installed("libcuda-shim", "1.0", "0"),
                                                    installed("python", "3.12.1", "h1_3")};

TEST(InstalledRecords, ARegexFindsNamesCaseInsensitivelyAnywhere) {
  const auto all = records_named_like(kRecords, "", false);
  ASSERT_TRUE(all) << all.error();
  EXPECT_EQ(names(*all), (std::vector<std::string>{"cuda-cudart", "libcuda-shim", "python"}));
  const auto cuda = records_named_like(kRecords, "CUDA", false);
  ASSERT_TRUE(cuda) << cuda.error();
  EXPECT_EQ(names(*cuda), (std::vector<std::string>{"cuda-cudart", "libcuda-shim"}));
  const auto anchored = records_named_like(kRecords, "^cuda", false);
  ASSERT_TRUE(anchored);
  EXPECT_EQ(names(*anchored), (std::vector<std::string>{"cuda-cudart"}));
}

TEST(InstalledRecords, FullNameMustMatchTheWholeNameEvenWithAlternatives) {
  const auto partial = records_named_like(kRecords, "cuda", true);
  ASSERT_TRUE(partial);
  EXPECT_TRUE(partial->empty());
  // ^(?:python|cuda)$: an alternative does not escape the anchors.
  const auto either = records_named_like(kRecords, "python|cuda", true);
  ASSERT_TRUE(either);
  EXPECT_EQ(names(*either), (std::vector<std::string>{"python"}));
}

TEST(InstalledRecords, ABrokenRegexSaysWhatToGive) {
  const auto broken = records_named_like(kRecords, "cuda[", false);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().find("'cuda[' is not a regular expression"), std::string::npos) << broken.error();
  EXPECT_NE(broken.error().find("'^cuda'"), std::string::npos) << broken.error();
}

TEST(InstalledRecords, TheJsonListIsCondasDistFieldsWithSortedKeys) {
  const std::vector<const prefix::PrefixRecord*> shown = {&kRecords[2]};
  EXPECT_EQ(conda_list_json(shown, specs::ChannelContext{}), R"([
  {
    "base_url": "https://conda.anaconda.org/conda-forge",
    "build_number": 3,
    "build_string": "h1_3",
    "channel": "conda-forge",
    "dist_name": "python-3.12.1-h1_3",
    "name": "python",
    "platform": "linux-64",
    "version": "3.12.1"
  }
])");
  EXPECT_EQ(conda_list_json({}, specs::ChannelContext{}), "[]");
}

}  // namespace
}  // namespace gpuenv::environment
