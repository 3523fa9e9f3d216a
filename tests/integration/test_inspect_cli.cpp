// `gpuenv inspect` end to end over the committed tiny CUDA binaries.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::run_gpuenv;
using nlohmann::json;

std::string committed(const std::string& name) {
  return (fs::path(GPUENV_SOURCE_DIR) / "tests/data/cuda_binary" / name).string();
}

TEST(InspectCli, PrintsTheTargetsOfEachFile) {
  const auto result = run_gpuenv({"inspect", committed("sm80_sm90a_ptx90.fatbin"), committed("libadd_sm90.so")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("sm80_sm90a_ptx90.fatbin (fatbin)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("SASS: sm_80 sm_90a\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("PTX:  compute_90 (PTX ISA 9.0)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("libadd_sm90.so (shared library)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("SASS: sm_90\n"), std::string::npos) << result.out;
}

TEST(InspectCli, JsonListsEveryEntryWithEntries) {
  const auto result = run_gpuenv({"inspect", "--json", "--entries", committed("zstd_all.fatbin")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = json::parse(result.out);
  EXPECT_TRUE(document["success"].get<bool>());
  const auto& file = document["files"].at(0);
  EXPECT_EQ(file["format"], "fatbin");
  EXPECT_EQ(file["sass"], json::array({"sm_80"}));
  EXPECT_EQ(file["ptx"].at(0)["arch"], "compute_90");
  EXPECT_EQ(file["ptx"].at(0)["ptx_isa"], "9.0");
  ASSERT_EQ(file["entries"].size(), 2u);
  EXPECT_EQ(file["entries"].at(0)["compression"], "zstd");
  EXPECT_EQ(file["entries"].at(0)["uncompressed_size"], 3112);
}

TEST(InspectCli, AFileItCannotReadIsAnErrorAndTheOthersAreStillListed) {
  gpuenv::testing::TempDirectory directory;
  gpuenv::testing::write_text_file(directory / "notes.txt", "not a binary\n");
  const auto result = run_gpuenv({"inspect", (directory / "notes.txt").string(), committed("sm_90a.cubin")});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("notes.txt: not a CUDA binary"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("SASS: sm_90a"), std::string::npos) << result.out;
  const auto json_result = run_gpuenv({"inspect", "--json", (directory / "notes.txt").string()});
  EXPECT_EQ(json_result.exit_code, 1);
  const auto document = json::parse(json_result.out);
  EXPECT_FALSE(document["success"].get<bool>());
  EXPECT_EQ(document["errors"].at(0)["kind"], "not_a_binary");
}

TEST(InspectCli, PtxPrintsTheDecompressedText) {
  const auto result = run_gpuenv({"inspect", "--ptx", committed("lz4_ptx.fatbin")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find(".target sm_80"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(".visible .entry add_one"), std::string::npos) << result.out;
}

TEST(InspectCli, ExtractedContainersAreFatbinsOfTheirOwn) {
  gpuenv::testing::TempDirectory directory;
  const auto result = run_gpuenv({"inspect", "--extract-containers", directory.path().string(), committed("libadd_sm80.so")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::string> written;
  for (const auto& entry : fs::directory_iterator(directory.path())) written.push_back(entry.path().string());
  ASSERT_EQ(written.size(), 2u);
  const auto listed = run_gpuenv({"inspect", written[0], written[1]});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("(fatbin)"), std::string::npos);
  EXPECT_NE(listed.out.find("SASS: sm_80"), std::string::npos) << listed.out;
}

}  // namespace
