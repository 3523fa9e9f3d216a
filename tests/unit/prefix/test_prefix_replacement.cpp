// Prefix placeholder replacement in text and binary files, conda's rules.
#include <gtest/gtest.h>

#include "gpuenv/prefix/prefix_replacement.hpp"

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
