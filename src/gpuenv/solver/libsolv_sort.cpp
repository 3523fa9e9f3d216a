// libsolv sorts through qsort_r (solv_sort). glibc's qsort_r is a merge sort
// that moves elements of sizes other than 4 and 8 bytes with a memcpy call
// each; solving the bench request spends over 40% of its time there, in
// the sort of about 860,000 rules (24 bytes each) in solver_unifyrules.
//
// The link redirects libsolv's qsort_r calls here (-Wl,--wrap=qsort_r, see
// CMakeLists.txt): std::stable_sort on elements of a fixed size does the
// same work with plain moves. Both sorts are stable, so for libsolv's
// comparators (strict weak orderings) the result is the same permutation
// glibc gives -- the solver's answers do not change. Sizes without a fixed
// type here go to glibc.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <thread>

namespace {

using Compare = int (*)(const void*, const void*, void*);

template <std::size_t Size>
struct Element {
  std::array<unsigned char, Size> bytes;
};

// Arrays at least this long are sorted in two halves on two threads, then
// merged. Only the rule sorts of big solves are that long (solver_unifyrules
// with unifyrules_sortcmp; 860,000 rules for the bench request).
constexpr std::size_t parallel_threshold = 1 << 16;

template <std::size_t Size>
void stable_sort_elements(void* base, std::size_t count, Compare compare, void* argument) {
  auto* first = static_cast<Element<Size>*>(base);
  const auto less = [compare, argument](const Element<Size>& a, const Element<Size>& b) {
    return compare(&a, &b, argument) < 0;
  };
  if (count < parallel_threshold || std::thread::hardware_concurrency() < 2) {
    std::stable_sort(first, first + count, less);
    return;
  }
  // Stable as a whole: each half is sorted stably, and the merge takes from
  // the first half on ties. libsolv's comparators only read the pool.
  auto* middle = first + count / 2;
  std::thread first_half([&] { std::stable_sort(first, middle, less); });
  std::stable_sort(middle, first + count, less);
  first_half.join();
  std::inplace_merge(first, middle, first + count, less);
}

}  // namespace

extern "C" {

void __real_qsort_r(void* base, std::size_t count, std::size_t size, Compare compare, void* argument);

void __wrap_qsort_r(void* base, std::size_t count, std::size_t size, Compare compare, void* argument) {
  if (count < 2) return;
  switch (size) {
    case 4: return stable_sort_elements<4>(base, count, compare, argument);
    case 8: return stable_sort_elements<8>(base, count, compare, argument);
    case 12: return stable_sort_elements<12>(base, count, compare, argument);
    case 16: return stable_sort_elements<16>(base, count, compare, argument);
    case 20: return stable_sort_elements<20>(base, count, compare, argument);
    case 24: return stable_sort_elements<24>(base, count, compare, argument);
    case 28: return stable_sort_elements<28>(base, count, compare, argument);
    case 32: return stable_sort_elements<32>(base, count, compare, argument);
    default: return __real_qsort_r(base, count, size, compare, argument);
  }
}

}  // extern "C"
