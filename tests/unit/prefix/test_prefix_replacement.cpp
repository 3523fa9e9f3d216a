// Prefix placeholder replacement in text and binary files, conda's rules.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "gpuenv/prefix/prefix_replacement.hpp"
#include "support/bounded_child.hpp"

namespace gpuenv::prefix {
namespace {

using namespace std::string_literals;

TEST(PrefixTextReplacement, ReplacesEveryOccurrenceAtAnyLength) {
  EXPECT_EQ(replace_prefix_in_text("A=/ph/lib:/ph/bin\nB=/ph\n", "/ph", "/home/user/envs/x"),
            "A=/home/user/envs/x/lib:/home/user/envs/x/bin\nB=/home/user/envs/x\n");
  EXPECT_EQ(replace_prefix_in_text("nothing here", "/ph", "/x"), "nothing here");
}

TEST(PrefixTextReplacement, ShortensAShebangLinuxWouldCut) {
  const std::string prefix = "/" + std::string(130, 'p');
  const auto script = replace_prefix_in_text("#!/ph/bin/python3.12 -E\nprint('hi')\n", "/ph", prefix);
  EXPECT_EQ(script, "#!/usr/bin/env python3.12 -E\nprint('hi')\n");
  // A shebang that fits stays as it is.
  EXPECT_EQ(replace_prefix_in_text("#!/ph/bin/python\n", "/ph", "/env"), "#!/env/bin/python\n");
  // An interpreter path holding an escaped space is shortened too.
  EXPECT_EQ(shorten_long_shebang("#!/my\\ env/bin/perl -w\n"), "#!/usr/bin/env perl -w\n");
}

TEST(PrefixBinaryReplacement, PadsEachStringToItsLength) {
  const auto original = "\x7f" "ELF\0/opt/placeholder/lib:/opt/placeholder/x\0tail/opt/placeholder\0"s;
  const auto replaced = replace_prefix_in_binary(original, "/opt/placeholder", "/env");
  ASSERT_TRUE(replaced);
  EXPECT_EQ(replaced->size(), original.size());
  EXPECT_EQ(*replaced,
            "\x7f" "ELF\0/env/lib:/env/x"s + std::string(24, '\0') + "\0tail/env"s + std::string(12, '\0') + "\0"s);
}

TEST(PrefixBinaryReplacement, RefusesAPrefixLongerThanThePlaceholder) {
  const auto original = "head\0/short/bin\0"s;
  EXPECT_FALSE(replace_prefix_in_binary(original, "/short", "/much/longer/prefix"));
  // Without an occurrence there is nothing to refuse.
  EXPECT_EQ(replace_prefix_in_binary("no placeholder\0"s, "/short", "/much/longer/prefix"),
            "no placeholder\0"s);
}

TEST(PrefixBinaryReplacement, LeavesAnUnterminatedOccurrence) {
  // conda's pattern needs the terminating NUL.
  const auto original = "data /opt/ph/lib"s;
  EXPECT_EQ(replace_prefix_in_binary(original, "/opt/ph", "/e"), original);
}

}  // namespace
}  // namespace gpuenv::prefix

// The streamed rewrite against the whole-file one.
namespace gpuenv::prefix {
namespace {

using namespace std::string_literals;

std::optional<std::string> streamed(std::string_view content, std::string_view placeholder,
                                    std::string_view prefix, bool binary, std::size_t chunk) {
  std::string output;
  const ReadAt read = [&](std::uint64_t offset, char* buffer, std::size_t size) -> std::size_t {
    if (offset >= content.size()) return 0;
    const auto count = std::min<std::size_t>(size, content.size() - offset);
    std::memcpy(buffer, content.data() + offset, count);
    return count;
  };
  const WriteOut write = [&](std::string_view bytes) { output.append(bytes); };
  if (!stream_prefix_replacement(read, write, placeholder, prefix, binary, chunk)) {
    return std::nullopt;
  }
  return output;
}

// Random files built from pieces that make boundaries interesting:
// placeholders (whole, cut short, back to back), NULs, shebangs, newlines.
std::string random_content(std::mt19937& random, const std::string& placeholder) {
  static const std::vector<std::string> pieces = {"\0"s, "\n", "#!", " ", "a", "xyz", "/", "\r\n",
                                                  "\\ ", "#!/usr/bin/python3 -E\n"};
  std::string content;
  const auto count = random() % 40;
  for (std::uint32_t i = 0; i < count; ++i) {
    switch (random() % 4) {
      case 0:
        content += placeholder;
        break;
      case 1:
        content += placeholder.substr(0, random() % placeholder.size());
        break;
      case 2:
        content += std::string(random() % 200, static_cast<char>('a' + random() % 3));
        break;
      default:
        content += pieces[random() % pieces.size()];
    }
  }
  if (random() % 3 == 0) content = "#!" + placeholder + "/bin/" + content;
  return content;
}

TEST(StreamedPrefixReplacement, EqualsTheWholeFileRewriteOnRandomFiles) {
  std::mt19937 random(20240917);
  const std::vector<std::string> placeholders = {"/ph", "/opt/anaconda1anaconda2anaconda3", "pp",
                                                 "/a/very/long/placeholder/" + std::string(150, 'p')};
  const std::vector<std::string> prefixes = {"/e", "/home/user/envs/x", std::string(140, 'q'),
                                             "/opt/anaconda1anaconda2anaconda3/longer"};
  std::size_t checked = 0;
  for (int round = 0; round < 3000; ++round) {
    const auto& placeholder = placeholders[random() % placeholders.size()];
    const auto& prefix = prefixes[random() % prefixes.size()];
    const auto content = random_content(random, placeholder);
    // Chunks smaller than, equal to and larger than the placeholder.
    const std::size_t chunk = 1 + random() % (placeholder.size() * 2 + 3);
    const auto text = replace_prefix_in_text(content, placeholder, prefix);
    ASSERT_EQ(streamed(content, placeholder, prefix, false, chunk), text)
        << "text, chunk " << chunk << ", content: " << content;
    const auto binary = replace_prefix_in_binary(content, placeholder, prefix);
    ASSERT_EQ(streamed(content, placeholder, prefix, true, chunk), binary)
        << "binary, chunk " << chunk << ", content: " << content;
    ++checked;
  }
  EXPECT_EQ(checked, 3000u);
}

TEST(StreamedPrefixReplacement, StraddlingPlaceholderAndCString) {
  const std::string placeholder = "/opt/placeholder";
  const std::string content = "head " + placeholder + "/lib:" + placeholder + "/bin" + "\0tail"s;
  for (std::size_t chunk = 1; chunk < content.size() + 2; ++chunk) {
    EXPECT_EQ(streamed(content, placeholder, "/env", true, chunk),
              replace_prefix_in_binary(content, placeholder, "/env"))
        << chunk;
    EXPECT_EQ(streamed(content, placeholder, "/env", false, chunk),
              replace_prefix_in_text(content, placeholder, "/env"))
        << chunk;
  }
}

// 512 MiB of generated input (never in memory) with a placeholder every
// 64 KiB, rewritten under an address-space limit the whole-file rewrite
// (about twice the file) cannot fit in.
TEST(StreamedPrefixReplacement, MemoryStaysBoundedForHugeFiles) {
  constexpr std::uint64_t kSize = 512ull << 20;
  const std::string placeholder = "/opt/placeholder_placeholder";
  const auto outcome = testing::run_bounded({.address_space = testing::current_address_space() + (96u << 20)}, [&] {
    std::uint64_t produced = 0;
    std::uint64_t replacements = 0;
    const ReadAt read = [&](std::uint64_t offset, char* buffer, std::size_t size) -> std::size_t {
      if (offset >= kSize) return 0;
      const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(size, kSize - offset));
      for (std::size_t i = 0; i < count; ++i) {
        const auto at = (offset + i) % (64u << 10);
        buffer[i] = at < placeholder.size() ? placeholder[at] : (at % 80 == 79 ? '\n' : 'x');
      }
      return count;
    };
    const WriteOut write = [&](std::string_view bytes) {
      produced += bytes.size();
      if (bytes == "/env") ++replacements;
    };
    stream_prefix_replacement(read, write, placeholder, "/env", false);
    return std::to_string(produced) + " " + std::to_string(replacements);
  });
  EXPECT_EQ(outcome.exit_code, 0) << outcome.message;
  const auto occurrences = kSize / (64u << 10);
  EXPECT_EQ(outcome.message, std::to_string(kSize - occurrences * (placeholder.size() - 4)) + " " +
                                 std::to_string(occurrences));
}

}  // namespace
}  // namespace gpuenv::prefix
