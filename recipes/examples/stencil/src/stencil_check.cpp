// stencil-check: runs the GPU stencil against the CPU reference on a random
// image. Exit 0: they match; 1: they differ or the GPU failed; 2: no usable
// GPU here (nothing compared), so a test can tell "no GPU" from "wrong".
// --cpu-only checks the CPU reference against a worked example instead.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "stencil.h"

namespace {

int check_cpu_reference() {
  // 3x4 image, worked by hand: the inner pixels' neighbourhoods sum to 54
  // and 56, so 6 and 6 (not their inputs 9 and 18); the border is copied.
  const int32_t in[] = {1, 2, 3, 4, 0, 9, 18, 5, 6, 7, 8, 0};
  const int32_t expected[] = {1, 2, 3, 4, 0, 6, 6, 5, 6, 7, 8, 0};
  int32_t out[12] = {};
  if (stencil_smooth_cpu(in, out, 3, 4) != STENCIL_OK) return 1;
  for (int k = 0; k < 12; ++k) {
    if (out[k] != expected[k]) return 1;
  }
  // Floor division: the sum -8 gives -1 (C's truncation would give 0).
  const int32_t negative[] = {-1, -1, -1, -1, -1, -1, -1, -1, 0};
  int32_t negative_out[9] = {};
  if (stencil_smooth_cpu(negative, negative_out, 3, 3) != STENCIL_OK || negative_out[4] != -1) return 1;
  if (stencil_smooth_cpu(nullptr, out, 3, 4) != STENCIL_INVALID_ARGUMENT) return 1;
  std::printf("stencil: CPU reference matches the worked example\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int rows = 1000;
  int cols = 1500;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cpu-only") == 0) {
      const int status = check_cpu_reference();
      if (status != 0) std::fprintf(stderr, "stencil: the CPU reference is wrong\n");
      return status;
    }
    if (std::strcmp(argv[i], "--size") == 0 && i + 2 < argc) {
      rows = std::atoi(argv[i + 1]);
      cols = std::atoi(argv[i + 2]);
      i += 2;
      continue;
    }
    std::fprintf(stderr, "usage: stencil-check [--size ROWS COLS] [--cpu-only]\n");
    return 1;
  }
  if (rows < 1 || cols < 1 || static_cast<long long>(rows) * cols > (1LL << 28)) {
    std::fprintf(stderr, "stencil-check: --size wants 1..%lld pixels\n", 1LL << 28);
    return 1;
  }
  const std::size_t pixels = static_cast<std::size_t>(rows) * cols;
  std::vector<int32_t> image(pixels);
  std::mt19937 random(12345);
  std::uniform_int_distribution<int32_t> value(-100000, 100000);
  for (auto& pixel : image) pixel = value(random);
  std::vector<int32_t> cpu(pixels);
  std::vector<int32_t> gpu(pixels);
  if (stencil_smooth_cpu(image.data(), cpu.data(), rows, cols) != STENCIL_OK) return 1;
  const int status = stencil_smooth(image.data(), gpu.data(), rows, cols);
  if (status == STENCIL_NO_DEVICE) {
    std::fprintf(stderr, "stencil: no usable CUDA GPU here (%s): nothing compared\n", stencil_status_text(status));
    return 2;
  }
  if (status != STENCIL_OK) {
    std::fprintf(stderr, "stencil: the GPU failed: %s\n", stencil_status_text(status));
    return 1;
  }
  for (std::size_t k = 0; k < pixels; ++k) {
    if (gpu[k] != cpu[k]) {
      std::fprintf(stderr, "stencil: GPU and CPU differ at row %zu, column %zu: %d vs %d\n", k / cols, k % cols,
                   gpu[k], cpu[k]);
      return 1;
    }
  }
  std::printf("stencil: %zu pixels, GPU matches CPU\n", pixels);
  return 0;
}
