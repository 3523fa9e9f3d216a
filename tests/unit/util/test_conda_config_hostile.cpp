// Hostile and oversized .condarc files (issue 9): an alias bomb, an alias
// cycle and an oversized file anywhere in the search path are refused with a
// message naming the file; a huge channel list merges in linear time. Bombs
// run in a child under a memory limit so a regression cannot take the
// machine down.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "gpuenv/util/conda_config.hpp"
#include "support/bounded_child.hpp"
#include "support/hostile_yaml.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::util {
namespace {

using gpuenv::testing::billion_laughs;
using gpuenv::testing::run_bounded;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;
using Strings = std::vector<std::string>;

constexpr std::size_t kChildMemory = std::size_t{1} << 30;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class HostileCondarc : public ::testing::Test {
 protected:
  // load_conda_config over the search path, $CONDARC naming `text`, in a
  // child limited to 1 GiB: its error, or "loaded".
  std::string load_condarc(const std::string& text) {
    write_text_file(condarc_, text);
    const auto outcome = run_bounded(
      {.address_space = kChildMemory},
        [&] {
          const auto config = load_conda_config(fixed_environment(
              {{"HOME", (dir_ / "home").string()}, {"CONDARC", condarc_.string()}}));
          return config ? std::string("loaded") : config.error();
        });
    EXPECT_TRUE(outcome.finished()) << "loading the .condarc did not come back: " << outcome.how_it_ended();
    return outcome.message;
  }

  TempDirectory dir_;
  std::filesystem::path condarc_ = dir_ / "condarc.yml";
};

// The ten-line file: 9^9 channels once the aliases are expanded.
TEST_F(HostileCondarc, ABillionLaughsIsRefusedNamingTheFile) {
  const auto message = load_condarc(billion_laughs("channels"));
  EXPECT_TRUE(contains(message, condarc_.string())) << message;
  EXPECT_TRUE(contains(message, "more than 1000000 values")) << message;
}

TEST_F(HostileCondarc, AnAliasCycleIsRefused) {
  const auto message = load_condarc("channels: &loop [conda-forge, *loop]\n");
  EXPECT_TRUE(contains(message, condarc_.string() + ":1")) << message;
  EXPECT_TRUE(contains(message, "levels")) << message;
}

TEST_F(HostileCondarc, AliasesOfALongStringAreRefused) {
  std::string text = "s: &s \"" + std::string(1 << 20, 'x') + "\"\nchannels: [*s";
  for (int i = 0; i < 4000; ++i) text += ", *s";
  const auto message = load_condarc(text + "]\n");
  EXPECT_TRUE(contains(message, condarc_.string())) << message;
  EXPECT_TRUE(contains(message, "of text")) << message;
}

TEST_F(HostileCondarc, AnOversizedFileIsRefused) {
  const auto message = load_condarc("channels: [a]\n" + std::string(3 << 20, '#') + "\n");
  EXPECT_TRUE(contains(message, condarc_.string() + " is larger than the 2 MiB")) << message;
}

// conda's list merge (higher-precedence sources first, each value once,
// #!top first and #!bottom last) was quadratic: 100,000 channels took 63 s.
TEST_F(HostileCondarc, AHundredThousandChannelsMergeInLinearTime) {
  constexpr int count = 100'000;
  std::string from_file = "channels:\n  - first  #!top\n  - last  #!bottom\n";
  std::string from_variable;
  for (int i = 0; i < count; ++i) {
    from_file += "  - file-" + std::to_string(i) + "\n";
    from_variable += "var-" + std::to_string(i) + ",";
    if (i % 2 == 0) from_variable += "file-" + std::to_string(i) + ",";  // dropped: already listed
  }
  write_text_file(condarc_, from_file);
  // In a child with a CPU limit: the quadratic merge would take minutes.
  const auto outcome = run_bounded(
      {.address_space = kChildMemory, .cpu_seconds = 20},
      [&] {
        const auto started = std::chrono::steady_clock::now();
        const auto config = load_conda_config({condarc_}, fixed_environment({{"CONDA_CHANNELS", from_variable}}));
        const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        if (!config) return config.error();
        const auto& channels = config->channels;
        std::string summary = std::to_string(channels.size());
        for (const auto& channel : {channels[0], channels[1], channels[2], channels[3], channels.back()}) {
          summary += " " + channel;
        }
        summary += " " + config->origin_of("channels", "file-0") + " " + config->origin_of("channels", "file-1");
        return summary + " " + std::to_string(seconds);
      });
  ASSERT_TRUE(outcome.finished()) << "the merge did not finish: " << outcome.how_it_ended();
  std::istringstream summary(outcome.message);
  std::size_t size = 0;
  std::string first, second, third, fourth, last, origin0, origin1;
  double seconds = 0;
  summary >> size >> first >> second >> third >> fourth >> last >> origin0 >> origin1 >> seconds;
  ASSERT_EQ(size, 2u * count + 2) << outcome.message;
  EXPECT_EQ(first, "first");
  EXPECT_EQ(second, "var-0");
  EXPECT_EQ(third, "file-0");  // where the variable (higher precedence) put it
  EXPECT_EQ(fourth, "var-1");
  EXPECT_EQ(last, "last");
  EXPECT_EQ(origin0, "$CONDA_CHANNELS");
  EXPECT_EQ(origin1, condarc_.string() + ":5");
  // yaml-cpp's parse of the 100,000-line file is most of the time left.
  EXPECT_LT(seconds, 5.0) << "the merge is not linear any more";
  std::cout << "100,000 + 150,000 channels read and merged in " << seconds << " s\n";
}

}  // namespace
}  // namespace gpuenv::util
