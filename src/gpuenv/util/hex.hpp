// Hexadecimal text <-> bytes for checksums. Branch-free: every record's md5
// and sha256 are decoded (hundreds of thousands on a cold load), and random
// hex digits defeat a branch predictor -- the comparisons version cost ~4 ns
// a character.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuenv::util {

// 0-15 for hex digits, 0xff for anything else.
inline constexpr std::array<std::uint8_t, 256> hex_digit_table = [] {
  std::array<std::uint8_t, 256> table{};
  table.fill(0xff);
  for (int c = '0'; c <= '9'; ++c) table[c] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) table[c] = static_cast<std::uint8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) table[c] = static_cast<std::uint8_t>(c - 'A' + 10);
  return table;
}();

// Hex of exactly `bytes` bytes into `out`; false (with `out` unspecified)
// for any other length or a character that is not a hex digit.
inline bool hex_to_binary(std::string_view hex, unsigned char* out, std::size_t bytes) noexcept {
  if (hex.size() != bytes * 2) return false;
  std::uint8_t invalid = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    const std::uint8_t high = hex_digit_table[static_cast<unsigned char>(hex[2 * i])];
    const std::uint8_t low = hex_digit_table[static_cast<unsigned char>(hex[2 * i + 1])];
    invalid |= static_cast<std::uint8_t>(high | low);
    out[i] = static_cast<unsigned char>((high << 4) | (low & 0xf));
  }
  return (invalid & 0xf0) == 0;
}

// `bytes` bytes as 2 * bytes lower-case hex digits into `out`.
inline void binary_to_hex(const unsigned char* binary, std::size_t bytes, char* out) noexcept {
  constexpr char digits[] = "0123456789abcdef";
  for (std::size_t i = 0; i < bytes; ++i) {
    out[2 * i] = digits[binary[i] >> 4];
    out[2 * i + 1] = digits[binary[i] & 0xf];
  }
}

// `bytes` bytes as a string of lower-case hex digits (digests, hashes).
inline std::string hex_string(const void* binary, std::size_t bytes) {
  std::string out(bytes * 2, '0');
  binary_to_hex(static_cast<const unsigned char*>(binary), bytes, out.data());
  return out;
}

}  // namespace gpuenv::util
