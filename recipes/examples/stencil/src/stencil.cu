// libstencil: the kernel, its launch, and the CPU reference (stencil.h).
// Compiled by nvcc for the CUDA builds; compiled as C++ (g++ -x c++) for the
// CPU build, where stencil_smooth has no GPU to run on and says so.
#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#define __host__
#define __device__
#endif

#include <climits>
#include <cstddef>
#include <cstdint>

#include "stencil.h"

namespace {

#ifdef __CUDACC__
thread_local cudaError_t last_cuda_error = cudaSuccess;
#endif

// Floor division by 9 (Python's //), not C's truncation toward zero.
__host__ __device__ inline int32_t floor_div9(int64_t sum) {
  int64_t quotient = sum / 9;
  if (sum % 9 != 0 && sum < 0) --quotient;
  return static_cast<int32_t>(quotient);
}

__host__ __device__ inline int32_t smoothed(const int32_t* in, int rows, int cols, int i, int j) {
  const std::size_t width = static_cast<std::size_t>(cols);
  if (i == 0 || j == 0 || i == rows - 1 || j == cols - 1) return in[i * width + j];
  int64_t sum = 0;
  for (int di = -1; di <= 1; ++di) {
    for (int dj = -1; dj <= 1; ++dj) sum += in[(i + di) * width + (j + dj)];
  }
  return floor_div9(sum);
}

#ifdef __CUDACC__
__global__ void smooth_kernel(const int32_t* in, int32_t* out, int rows, int cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < rows && j < cols) out[static_cast<std::size_t>(i) * cols + j] = smoothed(in, rows, cols, i, j);
}

#endif

bool valid(const int32_t* in, const int32_t* out, int rows, int cols) {
  // Bytes of one image must fit a size_t and the grid's y dimension (65535 blocks of 16 rows).
  return in != nullptr && out != nullptr && rows > 0 && cols > 0 && rows <= 65535 * 16 &&
         static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) <= SIZE_MAX / sizeof(int32_t) / 2;
}

#ifdef __CUDACC__
int cuda_status(cudaError_t error) {
  last_cuda_error = error;
  if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver || error == cudaErrorNoKernelImageForDevice ||
      error == cudaErrorUnsupportedPtxVersion || error == cudaErrorCompatNotSupportedOnDevice) {
    return STENCIL_NO_DEVICE;
  }
  return STENCIL_CUDA_ERROR;
}
#endif

}  // namespace

extern "C" int stencil_smooth_cpu(const int32_t* in, int32_t* out, int rows, int cols) {
  if (!valid(in, out, rows, cols)) return STENCIL_INVALID_ARGUMENT;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) out[static_cast<std::size_t>(i) * cols + j] = smoothed(in, rows, cols, i, j);
  }
  return STENCIL_OK;
}

#ifndef __CUDACC__
extern "C" int stencil_smooth(const int32_t* in, int32_t* out, int rows, int cols) {
  return valid(in, out, rows, cols) ? STENCIL_NO_DEVICE : STENCIL_INVALID_ARGUMENT;
}
#else
extern "C" int stencil_smooth(const int32_t* in, int32_t* out, int rows, int cols) {
  if (!valid(in, out, rows, cols)) return STENCIL_INVALID_ARGUMENT;
  int devices = 0;
  if (const auto error = cudaGetDeviceCount(&devices); error != cudaSuccess) return cuda_status(error);
  if (devices == 0) return cuda_status(cudaErrorNoDevice);
  const std::size_t bytes = static_cast<std::size_t>(rows) * cols * sizeof(int32_t);
  int32_t* device_in = nullptr;
  int32_t* device_out = nullptr;
  cudaError_t error = cudaMalloc(&device_in, bytes);
  if (error == cudaSuccess) error = cudaMalloc(&device_out, bytes);
  if (error == cudaSuccess) error = cudaMemcpy(device_in, in, bytes, cudaMemcpyHostToDevice);
  if (error == cudaSuccess) {
    const dim3 block(16, 16);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    smooth_kernel<<<grid, block>>>(device_in, device_out, rows, cols);
    error = cudaGetLastError();
  }
  if (error == cudaSuccess) error = cudaMemcpy(out, device_out, bytes, cudaMemcpyDeviceToHost);
  cudaFree(device_in);
  cudaFree(device_out);
  return error == cudaSuccess ? STENCIL_OK : cuda_status(error);
}
#endif

extern "C" const char* stencil_status_text(int status) {
  switch (status) {
    case STENCIL_OK:
      return "ok";
    case STENCIL_INVALID_ARGUMENT:
      return "invalid argument: null buffer, or rows/cols out of range";
#ifdef __CUDACC__
    case STENCIL_NO_DEVICE:
    case STENCIL_CUDA_ERROR:
      return cudaGetErrorString(last_cuda_error);
#else
    case STENCIL_NO_DEVICE:
      return "this is the CPU build of libstencil (a machine with an NVIDIA driver gets a CUDA build)";
#endif
    default:
      return "unknown status";
  }
}
