#ifndef STENCIL_STATS_H
#define STENCIL_STATS_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mean of the 3x3-smoothed image of `in` (rows x cols, row-major), on
   the GPU when stencil finds one, else on the CPU. Returns 0, or stencil's
   status when the smoothing failed; *used_gpu says which ran. */
int stencil_stats_smoothed_mean(const int32_t* in, int rows, int cols, double* mean, int* used_gpu);

#ifdef __cplusplus
}
#endif
#endif
