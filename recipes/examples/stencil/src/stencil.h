/* libstencil: the 3x3 smoothing stencil of the GPU-Python example, on the
 * GPU (CUDA) and on the CPU (the reference the GPU result is checked
 * against).
 *
 *   out[i][j] = floor(sum of the 3x3 neighbourhood of in[i][j] / 9)
 *
 * Images are int32, row-major, rows x cols. The division is floor division
 * (Python's `//`, what the NumPy example computes), so negative pixels give
 * the same answer as there. Border pixels (first and last row and column)
 * have no full neighbourhood: they are copied from the input unchanged. */
#ifndef STENCIL_H
#define STENCIL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum stencil_status {
  STENCIL_OK = 0,
  STENCIL_INVALID_ARGUMENT = 1, /* a null pointer, or rows/cols < 1 or too large */
  STENCIL_NO_DEVICE = 2,        /* no CUDA driver or no GPU this build can run on */
  STENCIL_CUDA_ERROR = 3,       /* the GPU failed: memory, launch, copy */
};

/* Smooths `in` into `out` (distinct buffers of rows * cols values) on the GPU. */
int stencil_smooth(const int32_t* in, int32_t* out, int rows, int cols);

/* The same on the CPU. */
int stencil_smooth_cpu(const int32_t* in, int32_t* out, int rows, int cols);

/* Words for a status, and for STENCIL_NO_DEVICE / STENCIL_CUDA_ERROR what
 * the CUDA runtime said last in this thread. */
const char* stencil_status_text(int status);

#ifdef __cplusplus
}
#endif

#endif
