// The code that runs inside the forked probe child: it loads the driver
// library, calls it, and writes a transcript (probe_transcript.hpp) to `fd`.
// It must only return; the caller (_exit) ends the process.
#pragma once

#include <string>
#include <vector>

namespace gpuenv::system {

// Tries each candidate in order with dlopen (a bare name goes through the
// loader's search, a path is opened as is), then runs cuInit,
// cuDriverGetVersion, cuDeviceGetCount and, per device, cuDeviceGet,
// cuDeviceGetName, the compute capability attributes, cuDeviceTotalMem_v2,
// cuDeviceGetUuid and cuDeviceGetPCIBusId.
int probe_libcuda_in_child(int fd, const std::vector<std::string>& candidates);

// The same facts from NVML (libnvidia-ml.so.1), used when libcuda cannot be.
int probe_nvml_in_child(int fd, const std::vector<std::string>& candidates);

}  // namespace gpuenv::system
