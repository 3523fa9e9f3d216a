// libsolv's qsort_r calls are redirected (-Wl,--wrap=qsort_r) to a stable
// sort of our own, __wrap_qsort_r in src/gpuenv/solver/libsolv_sort.cpp.
// It must order like glibc's merge sort: sorted and stable, for every
// element size. The tests call it by its own name, so they test it whether
// or not the link redirects anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

extern "C" void __wrap_qsort_r(void* base, std::size_t count, std::size_t size,
                               int (*compare)(const void*, const void*, void*), void* argument);

namespace {

// Elements of `Size` bytes: a key that repeats (ties) and a serial number
// that shows whether ties kept their order.
template <std::size_t Size>
struct Record {
  std::uint32_t key;
  std::uint32_t serial;
  std::array<unsigned char, Size - 8> padding;
};

int compare_keys(const void* a, const void* b, void* calls) {
  ++*static_cast<std::size_t*>(calls);
  std::uint32_t left, right;
  std::memcpy(&left, a, sizeof left);
  std::memcpy(&right, b, sizeof right);
  return left < right ? -1 : left > right ? 1 : 0;
}

template <std::size_t Size>
void expect_sorted_and_stable(std::size_t count) {
  static_assert(sizeof(Record<Size>) == Size);
  std::mt19937 random(static_cast<unsigned>(count * Size));
  std::vector<Record<Size>> records(count);
  for (std::size_t i = 0; i < count; ++i) {
    records[i].key = static_cast<std::uint32_t>(random() % (count / 4 + 1));
    records[i].serial = static_cast<std::uint32_t>(i);
    records[i].padding.fill(static_cast<unsigned char>(i & 0xff));
  }
  auto expected = records;
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.key < b.key; });
  std::size_t calls = 0;
  __wrap_qsort_r(records.data(), records.size(), sizeof(Record<Size>), compare_keys, &calls);
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_EQ(records[i].key, expected[i].key) << "size " << Size << " at " << i;
    ASSERT_EQ(records[i].serial, expected[i].serial) << "size " << Size << " at " << i << ": ties reordered";
    ASSERT_EQ(records[i].padding, expected[i].padding);
  }
  if (count > 1) {
    EXPECT_GT(calls, 0u);
  }
}

TEST(LibsolvSort, SortsStablyForEverySize) {
  for (const std::size_t count : {0, 1, 2, 3, 17, 1000, 50000}) {
    expect_sorted_and_stable<12>(count);
    expect_sorted_and_stable<16>(count);
    expect_sorted_and_stable<24>(count);
    expect_sorted_and_stable<32>(count);
    expect_sorted_and_stable<40>(count);  // no fixed type: glibc's own sort
  }
  // Long enough to be sorted in two halves on two threads, odd and even.
  expect_sorted_and_stable<24>(200001);
  expect_sorted_and_stable<12>(200000);
}

// 8-byte elements (libsolv's Id pairs): the key in the high half, the
// serial number in the low half, compared by key alone.
TEST(LibsolvSort, SortsEightByteElementsStably) {
  for (const std::size_t count : {1000, 200000}) {
    std::mt19937 random(static_cast<unsigned>(count));
    std::vector<std::uint64_t> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = (std::uint64_t{random() % 97} << 32) | i;
    auto expected = values;
    std::stable_sort(expected.begin(), expected.end(), [](auto a, auto b) { return (a >> 32) < (b >> 32); });
    __wrap_qsort_r(
        values.data(), values.size(), sizeof(std::uint64_t),
        [](const void* a, const void* b, void*) {
          const auto left = *static_cast<const std::uint64_t*>(a) >> 32;
          const auto right = *static_cast<const std::uint64_t*>(b) >> 32;
          return left < right ? -1 : left > right ? 1 : 0;
        },
        nullptr);
    EXPECT_EQ(values, expected);
  }
}

}  // namespace
