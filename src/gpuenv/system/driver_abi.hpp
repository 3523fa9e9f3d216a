// The few parts of the NVIDIA CUDA driver API (libcuda.so.1) and of NVML
// (libnvidia-ml.so.1) that gpuenv calls, declared by hand.
//
// Why not cuda.h / nvml.h: gpuenv must build on machines with no CUDA
// toolkit and must never link against the driver (it runs where there is
// none). Both libraries keep these entry points and values stable across
// releases for binary compatibility, so declaring them here is safe.
// Values are those of cuda.h and nvml.h (CUDA 12/13).
#pragma once

#include <cstddef>

namespace gpuenv::system::abi {

// ---- CUDA driver API ----------------------------------------------------

using CUresult = int;
using CUdevice = int;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;

// cuDeviceGetAttribute attributes.
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

struct CUuuid {
  unsigned char bytes[16];
};

using cuInit_t = CUresult (*)(unsigned int flags);
using cuDriverGetVersion_t = CUresult (*)(int* driver_version);
using cuDeviceGetCount_t = CUresult (*)(int* count);
using cuDeviceGet_t = CUresult (*)(CUdevice* device, int ordinal);
using cuDeviceGetName_t = CUresult (*)(char* name, int length, CUdevice device);
using cuDeviceGetAttribute_t = CUresult (*)(int* value, int attribute, CUdevice device);
using cuDeviceTotalMem_v2_t = CUresult (*)(std::size_t* bytes, CUdevice device);
using cuDeviceGetUuid_t = CUresult (*)(CUuuid* uuid, CUdevice device);
using cuDeviceGetPCIBusId_t = CUresult (*)(char* bus_id, int length, CUdevice device);

// ---- NVML -------------------------------------------------------------------

using nvmlReturn_t = int;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

inline constexpr nvmlReturn_t NVML_SUCCESS = 0;

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

// Buffer sizes nvml.h asks callers to provide.
inline constexpr unsigned int NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned int NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned int NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;

using nvmlInit_v2_t = nvmlReturn_t (*)();
using nvmlShutdown_t = nvmlReturn_t (*)();
using nvmlSystemGetDriverVersion_t = nvmlReturn_t (*)(char* version, unsigned int length);
using nvmlSystemGetCudaDriverVersion_v2_t = nvmlReturn_t (*)(int* cuda_driver_version);
using nvmlDeviceGetCount_v2_t = nvmlReturn_t (*)(unsigned int* count);
using nvmlDeviceGetHandleByIndex_v2_t = nvmlReturn_t (*)(unsigned int index, nvmlDevice_t* device);
using nvmlDeviceGetName_t = nvmlReturn_t (*)(nvmlDevice_t device, char* name, unsigned int length);
using nvmlDeviceGetCudaComputeCapability_t = nvmlReturn_t (*)(nvmlDevice_t device, int* major,
                                                              int* minor);
using nvmlDeviceGetMemoryInfo_t = nvmlReturn_t (*)(nvmlDevice_t device, nvmlMemory_t* memory);
using nvmlDeviceGetUUID_t = nvmlReturn_t (*)(nvmlDevice_t device, char* uuid, unsigned int length);
using nvmlDeviceGetPciInfo_v3_t = nvmlReturn_t (*)(nvmlDevice_t device, nvmlPciInfo_t* pci);

}  // namespace gpuenv::system::abi
