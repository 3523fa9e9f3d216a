/* stencil-stats: the mean of a stencil-smoothed image, through libstencil.
 * The GPU is tried first; without one the CPU reference gives the same
 * answer, so the library works on any machine. */
#include "stencil_stats.h"

#include <stdlib.h>

#include <stencil.h>

int stencil_stats_smoothed_mean(const int32_t* in, int rows, int cols, double* mean, int* used_gpu) {
  if (in == NULL || mean == NULL || used_gpu == NULL || rows < 1 || cols < 1) return STENCIL_INVALID_ARGUMENT;
  int32_t* out = malloc(sizeof(int32_t) * (size_t)rows * (size_t)cols);
  if (out == NULL) return STENCIL_INVALID_ARGUMENT;
  int status = stencil_smooth(in, out, rows, cols);
  *used_gpu = status == STENCIL_OK;
  if (status == STENCIL_NO_DEVICE) status = stencil_smooth_cpu(in, out, rows, cols);
  if (status == STENCIL_OK) {
    double sum = 0;
    for (long i = 0; i < (long)rows * cols; ++i) sum += out[i];
    *mean = sum / ((double)rows * cols);
  }
  free(out);
  return status;
}
