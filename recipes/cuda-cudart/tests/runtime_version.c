/* Links against the packaged libcudart.so and asks it for its version:
   cudaRuntimeGetVersion needs no driver or GPU, so this runs on CI. */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void) {
  int version = 0;
  if (cudaRuntimeGetVersion(&version) != cudaSuccess) return 1;
  printf("%d\n", version);
  return version == CUDART_VERSION ? 0 : 2;
}
