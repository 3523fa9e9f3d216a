// The bounded YAML loader every YAML reader of gpuenv goes through: alias
// bombs, alias cycles, deep nesting and oversized files are refused with a
// message naming the file, and ordinary files (aliases included) load.
// Bombs run in a child under a memory limit, so that a regression fails the
// test instead of exhausting the machine.
#include <gtest/gtest.h>

#include <string>

#include "gpuenv/util/yaml_document.hpp"
#include "support/bounded_child.hpp"
#include "support/hostile_yaml.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::util {
namespace {

using gpuenv::testing::billion_laughs;
using gpuenv::testing::run_bounded;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

constexpr std::size_t kChildMemory = std::size_t{1} << 30;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message load_yaml gives, or "loaded" — computed in a bounded child.
std::string outcome_of(const std::string& text, const YamlLimits& limits = {}) {
  const auto outcome = run_bounded(
      {.address_space = kChildMemory},
      [&] {
        const auto loaded = load_yaml(text, "bomb.yml", limits);
        return loaded ? std::string("loaded") : loaded.error().message;
      });
  EXPECT_TRUE(outcome.finished()) << "the loader did not come back: " << outcome.how_it_ended();
  return outcome.message;
}

TEST(YamlDocument, ABillionLaughsIsRefusedNamingTheFile) {
  const auto message = outcome_of(billion_laughs("channels"));
  EXPECT_TRUE(contains(message, "bomb.yml")) << message;
  EXPECT_TRUE(contains(message, "more than 1000000 values")) << message;
  EXPECT_TRUE(contains(message, "aliases")) << message;
}

TEST(YamlDocument, TheValueBudgetIsSettable) {
  // 9 * 9 + 9 + 1 values under `b`, plus the anchors' own definitions.
  const std::string text = "a: &a [x, x, x, x, x, x, x, x, x]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n";
  EXPECT_EQ(outcome_of(text, YamlLimits{.max_values = 200}), "loaded");
  EXPECT_TRUE(contains(outcome_of(text, YamlLimits{.max_values = 50}), "more than 50 values"));
}

TEST(YamlDocument, RepeatedAliasesOfALongStringAreRefused) {
  // Few values, but a reader copying each alias copies the whole string.
  std::string text = "s: &s \"" + std::string(64 << 10, 'x') + "\"\nchannels: [*s";
  for (int i = 0; i < 2000; ++i) text += ", *s";
  text += "]\n";
  const auto message = outcome_of(text);
  EXPECT_TRUE(contains(message, "bomb.yml")) << message;
  EXPECT_TRUE(contains(message, "of text")) << message;
  EXPECT_EQ(outcome_of(text, YamlLimits{.max_scalar_bytes = std::size_t{1} << 30}), "loaded");
}

TEST(YamlDocument, AnAliasInsideItsOwnAnchorIsRefused) {
  // yaml-cpp turns this into a cycle: an unbounded walk overflows the stack.
  const auto message = outcome_of("channels: &a [conda-forge, *a]\n");
  EXPECT_TRUE(contains(message, "bomb.yml:1")) << message;
  EXPECT_TRUE(contains(message, "more than 100 levels")) << message;
}

TEST(YamlDocument, DeepNestingIsRefused) {
  const std::string deep = std::string(150, '[') + std::string(150, ']');
  EXPECT_TRUE(contains(outcome_of(deep), "more than 100 levels"));
  const std::string shallow = std::string(20, '[') + std::string(20, ']');
  EXPECT_EQ(outcome_of(shallow), "loaded");
}

TEST(YamlDocument, OrdinaryAliasesAndMergeKeysLoad) {
  const auto loaded = load_yaml("base: &base {python: '3.12'}\nbuild: {<<: *base, cuda: '12.4'}\nlist: [*base]\n",
                                "ok.yml");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ((*loaded)["list"][0]["python"].as<std::string>(), "3.12");
}

TEST(YamlDocument, InvalidYamlNamesTheFileAndTheLine) {
  const auto loaded = load_yaml("a: 1\nb: [2\n", "broken.yml");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().kind, YamlError::Kind::not_yaml);
  EXPECT_TRUE(contains(loaded.error().message, "broken.yml:")) << loaded.error().message;
  EXPECT_TRUE(contains(loaded.error().message, "this is not valid YAML")) << loaded.error().message;
}

TEST(YamlDocument, AFileOverTheSizeLimitIsRefusedBeforeItIsRead) {
  TempDirectory dir;
  const auto path = dir / "big.yml";
  write_text_file(path, "channels:\n" + std::string(5000, '#') + "\n");
  const auto refused = read_yaml_file(path, nullptr, YamlLimits{.max_file_bytes = 4096});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, YamlError::Kind::too_large);
  EXPECT_TRUE(contains(refused.error().message, path.string() + " is larger than the 4 KiB")) << refused.error().message;
  std::string text;
  const auto read = read_yaml_file(path, &text, YamlLimits{.max_file_bytes = 8192});
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(text.size(), 5011u);
}

TEST(YamlDocument, AnEndlessStreamIsCutAtTheLimit) {
  const auto refused = read_yaml_file("/dev/zero", nullptr, YamlLimits{.max_file_bytes = 1 << 16});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, YamlError::Kind::too_large);
  EXPECT_FALSE(read_yaml_file("/nonexistent/condarc"));
}

}  // namespace
}  // namespace gpuenv::util
