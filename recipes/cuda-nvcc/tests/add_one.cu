// A kernel compiled and linked by the packaged nvcc (host code through the
// machine's g++). Without a GPU it says so and succeeds: the build is the test.
#include <cstdio>

__global__ void add_one(int* values) { values[threadIdx.x] += 1; }

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("add_one: compiled; no CUDA device to run on\n");
    return 0;
  }
  int host[32] = {};
  int* device = nullptr;
  if (cudaMalloc(&device, sizeof host) != cudaSuccess) return 1;
  cudaMemcpy(device, host, sizeof host, cudaMemcpyHostToDevice);
  add_one<<<1, 32>>>(device);
  cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost);
  cudaFree(device);
  for (int value : host) {
    if (value != 1) return 2;
  }
  std::printf("add_one: ran on the GPU\n");
  return 0;
}
