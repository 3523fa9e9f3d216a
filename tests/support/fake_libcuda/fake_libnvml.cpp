// A stand-in for the NVIDIA driver's libnvidia-ml.so.1 (NVML): the entry
// points gpuenv's fallback calls, answering from the same environment
// variables as the fake libcuda (fake_gpu_config.hpp). Tests point
// GPUENV_LIBNVML at it.
#include "fake_gpu_config.hpp"

namespace {

constexpr int NVML_SUCCESS = 0;
constexpr int NVML_ERROR_UNINITIALIZED = 1;
constexpr int NVML_ERROR_INVALID_ARGUMENT = 2;
constexpr int NVML_ERROR_INSUFFICIENT_SIZE = 7;

bool initialized = false;

// Handles are 1-based indices disguised as pointers.
struct nvmlDevice_st;

int device_at(nvmlDevice_st* handle, fake_gpu::Device& device) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  const auto index = reinterpret_cast<std::size_t>(handle);
  const auto devices = fake_gpu::all_devices();
  if (index == 0 || index > devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
  device = devices[index - 1];
  return NVML_SUCCESS;
}

}  // namespace

extern "C" {

struct nvmlMemory_st {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct nvmlPciInfo_st {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

__attribute__((visibility("default"))) int nvmlInit_v2() {
  fake_gpu::enter("nvmlInit_v2");
  if (const int error = fake_gpu::env_int("FAKE_NVML_INIT_ERROR", 0); error != 0) return error;
  initialized = true;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlShutdown() {
  initialized = false;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlSystemGetCudaDriverVersion_v2(int* version) {
  fake_gpu::enter("nvmlSystemGetCudaDriverVersion_v2");
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  *version = fake_gpu::env_int("FAKE_CUDA_DRIVER_VERSION", 13000);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  fake_gpu::enter("nvmlSystemGetDriverVersion");
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  const auto release = fake_gpu::env("FAKE_NVML_DRIVER_RELEASE", "580.159.04");
  if (release.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  fake_gpu::copy_string(release, version, length);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned int* count) {
  fake_gpu::enter("nvmlDeviceGetCount_v2");
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  *count = static_cast<unsigned int>(fake_gpu::all_devices().size());
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_st** handle) {
  fake_gpu::enter("nvmlDeviceGetHandleByIndex_v2");
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (index >= fake_gpu::all_devices().size()) return NVML_ERROR_INVALID_ARGUMENT;
  *handle = reinterpret_cast<nvmlDevice_st*>(static_cast<std::size_t>(index) + 1);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlDeviceGetName(nvmlDevice_st* handle, char* name, unsigned int length) {
  fake_gpu::Device device;
  if (const int result = device_at(handle, device); result != NVML_SUCCESS) return result;
  fake_gpu::copy_string(device.name, name, length);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlDeviceGetCudaComputeCapability(nvmlDevice_st* handle, int* major,
                                                                              int* minor) {
  fake_gpu::Device device;
  if (const int result = device_at(handle, device); result != NVML_SUCCESS) return result;
  *major = device.major;
  *minor = device.minor;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlDeviceGetMemoryInfo(nvmlDevice_st* handle, nvmlMemory_st* memory) {
  fake_gpu::Device device;
  if (const int result = device_at(handle, device); result != NVML_SUCCESS) return result;
  memory->total = device.memory;
  memory->free = device.memory;
  memory->used = 0;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlDeviceGetUUID(nvmlDevice_st* handle, char* uuid, unsigned int length) {
  fake_gpu::Device device;
  if (const int result = device_at(handle, device); result != NVML_SUCCESS) return result;
  fake_gpu::copy_string(fake_gpu::uuid_text(device.uuid), uuid, length);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) int nvmlDeviceGetPciInfo_v3(nvmlDevice_st* handle, nvmlPciInfo_st* pci) {
  fake_gpu::Device device;
  if (const int result = device_at(handle, device); result != NVML_SUCCESS) return result;
  std::memset(pci, 0, sizeof *pci);
  // NVML writes the domain with 8 digits.
  fake_gpu::copy_string("0000" + device.pci_bus_id, pci->busId, sizeof pci->busId);
  return NVML_SUCCESS;
}

}  // extern "C"
