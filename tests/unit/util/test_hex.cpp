// Checksum hex decoding: every digit in both cases, and any one bad
// character or a wrong length refuses the whole text.
#include <gtest/gtest.h>

#include <string>

#include "gpuenv/util/hex.hpp"

namespace gpuenv::util {
namespace {

TEST(Hex, RoundTripsEveryByteAndReadsUpperCase) {
  unsigned char bytes[256];
  for (int i = 0; i < 256; ++i) bytes[i] = static_cast<unsigned char>(i);
  std::string text(512, '?');
  binary_to_hex(bytes, sizeof(bytes), text.data());
  EXPECT_EQ(text.substr(0, 8), "00010203");
  EXPECT_EQ(text.substr(504), "fcfdfeff");
  unsigned char back[256] = {};
  ASSERT_TRUE(hex_to_binary(text, back, sizeof(back)));
  EXPECT_EQ(std::string(reinterpret_cast<char*>(back), 256), std::string(reinterpret_cast<char*>(bytes), 256));

  unsigned char upper[4];
  ASSERT_TRUE(hex_to_binary("DEADbeef", upper, 4));
  EXPECT_EQ(upper[0], 0xde);
  EXPECT_EQ(upper[3], 0xef);
}

TEST(Hex, OneBadCharacterAnywhereOrAWrongLengthIsRefused) {
  const std::string good(64, 'a');
  unsigned char out[32];
  ASSERT_TRUE(hex_to_binary(good, out, 32));
  for (std::size_t at = 0; at < good.size(); ++at) {
    for (const char bad : {'g', 'G', ' ', '\0', '/', ':', '@', '`', 'z', '\xff'}) {
      std::string text = good;
      text[at] = bad;
      EXPECT_FALSE(hex_to_binary(text, out, 32)) << "at " << at << " '" << bad << "'";
    }
  }
  EXPECT_FALSE(hex_to_binary(good.substr(1), out, 32));
  EXPECT_FALSE(hex_to_binary(good + "aa", out, 32));
  EXPECT_FALSE(hex_to_binary("", out, 32));
}

}  // namespace
}  // namespace gpuenv::util
