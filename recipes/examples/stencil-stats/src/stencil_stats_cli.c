/* stencil-stats ROWS COLS: smooths a deterministic test image and prints the
 * mean before and after, and where it ran. Exit 0, or 1 on failure. */
#include <stdio.h>
#include <stdlib.h>

#include <stencil.h>

#include "stencil_stats.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: stencil-stats ROWS COLS\n");
    return 1;
  }
  const int rows = atoi(argv[1]), cols = atoi(argv[2]);
  if (rows < 1 || cols < 1 || rows > 8192 || cols > 8192) {
    fprintf(stderr, "stencil-stats: ROWS and COLS must be 1..8192\n");
    return 1;
  }
  int32_t* image = malloc(sizeof(int32_t) * (size_t)rows * (size_t)cols);
  if (image == NULL) return 1;
  double input_sum = 0;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      image[(long)i * cols + j] = (i * 31 + j * 17) % 256; /* a fixed pattern: same output everywhere */
      input_sum += image[(long)i * cols + j];
    }
  }
  double mean = 0;
  int used_gpu = 0;
  const int status = stencil_stats_smoothed_mean(image, rows, cols, &mean, &used_gpu);
  free(image);
  if (status != STENCIL_OK) {
    fprintf(stderr, "stencil-stats: %s\n", stencil_status_text(status));
    return 1;
  }
  printf("stencil-stats: %dx%d image, mean %.3f, smoothed mean %.3f (%s)\n", rows, cols,
         input_sum / ((double)rows * cols), mean, used_gpu ? "GPU" : "CPU");
  return 0;
}
