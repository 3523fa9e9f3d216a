// A stand-in for the NVIDIA driver's libcuda.so.1: the entry points gpuenv
// calls, answering from environment variables (fake_gpu_config.hpp). Tests
// point GPUENV_LIBCUDA at it; no GPU or driver is needed.
#include <dlfcn.h>

#include <cstddef>

#include "fake_gpu_config.hpp"

namespace {

constexpr int CUDA_SUCCESS = 0;
constexpr int CUDA_ERROR_INVALID_VALUE = 1;
constexpr int CUDA_ERROR_NOT_INITIALIZED = 3;
constexpr int CUDA_ERROR_STUB_LIBRARY = 34;
constexpr int CUDA_ERROR_NO_DEVICE = 100;
constexpr int CUDA_ERROR_INVALID_DEVICE = 101;

// The one piece of state a driver has: whether cuInit succeeded.
bool initialized = false;

// This copy of the library acts as the toolkit's stub when its own path
// contains FAKE_CUDA_STUB_PATH_CONTAINS (so one test can have a stub and a
// real driver side by side) or when FAKE_CUDA_INIT_ERROR is 34.
bool is_stub() {
  if (fake_gpu::env_int("FAKE_CUDA_INIT_ERROR", 0) == CUDA_ERROR_STUB_LIBRARY) return true;
  const auto marker = fake_gpu::env("FAKE_CUDA_STUB_PATH_CONTAINS");
  if (marker.empty()) return false;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&is_stub), &info) == 0 || info.dli_fname == nullptr) return false;
  return std::string(info.dli_fname).find(marker) != std::string::npos;
}

int stub_or(int result) { return is_stub() ? CUDA_ERROR_STUB_LIBRARY : result; }

// Checks the common preconditions of a device query; fills `device`.
int device_for(int ordinal, fake_gpu::Device& device) {
  if (!initialized) return stub_or(CUDA_ERROR_NOT_INITIALIZED);
  const auto devices = fake_gpu::visible_devices();
  if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= devices.size()) return CUDA_ERROR_INVALID_DEVICE;
  device = devices[static_cast<std::size_t>(ordinal)];
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

struct CUuuid_st {
  unsigned char bytes[16];
};

__attribute__((visibility("default"))) int cuInit(unsigned int flags) {
  fake_gpu::enter("cuInit");
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (is_stub()) return CUDA_ERROR_STUB_LIBRARY;
  if (const int error = fake_gpu::env_int("FAKE_CUDA_INIT_ERROR", 0); error != 0) return error;
  if (fake_gpu::visible_devices().empty()) return CUDA_ERROR_NO_DEVICE;
  initialized = true;
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) int cuDriverGetVersion(int* version) {
  fake_gpu::enter("cuDriverGetVersion");
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (const int stub = stub_or(CUDA_SUCCESS); stub != CUDA_SUCCESS) return stub;
  *version = fake_gpu::env_int("FAKE_CUDA_DRIVER_VERSION", 13000);
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) int cuDeviceGetCount(int* count) {
  fake_gpu::enter("cuDeviceGetCount");
  if (!initialized) return stub_or(CUDA_ERROR_NOT_INITIALIZED);
  *count = static_cast<int>(fake_gpu::visible_devices().size());
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) int cuDeviceGet(int* device, int ordinal) {
  fake_gpu::enter("cuDeviceGet");
  fake_gpu::Device found;
  if (const int result = device_for(ordinal, found); result != CUDA_SUCCESS) return result;
  *device = ordinal;
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) int cuDeviceGetName(char* name, int length, int ordinal) {
  fake_gpu::enter("cuDeviceGetName");
  fake_gpu::Device device;
  if (const int result = device_for(ordinal, device); result != CUDA_SUCCESS) return result;
  if (name == nullptr || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  fake_gpu::copy_string(device.name, name, static_cast<std::size_t>(length));
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) int cuDeviceGetAttribute(int* value, int attribute, int ordinal) {
  fake_gpu::enter("cuDeviceGetAttribute");
  fake_gpu::Device device;
  if (const int result = device_for(ordinal, device); result != CUDA_SUCCESS) return result;
  if (attribute == 75) *value = device.major;
  else if (attribute == 76) *value = device.minor;
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) int cuDeviceTotalMem_v2(std::size_t* bytes, int ordinal) {
  fake_gpu::enter("cuDeviceTotalMem_v2");
  fake_gpu::Device device;
  if (const int result = device_for(ordinal, device); result != CUDA_SUCCESS) return result;
  *bytes = static_cast<std::size_t>(device.memory);
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) int cuDeviceGetUuid(CUuuid_st* uuid, int ordinal) {
  fake_gpu::enter("cuDeviceGetUuid");
  fake_gpu::Device device;
  if (const int result = device_for(ordinal, device); result != CUDA_SUCCESS) return result;
  std::memcpy(uuid->bytes, device.uuid, 16);
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) int cuDeviceGetUuid_v2(CUuuid_st* uuid, int ordinal) {
  return cuDeviceGetUuid(uuid, ordinal);
}

__attribute__((visibility("default"))) int cuDeviceGetPCIBusId(char* bus_id, int length, int ordinal) {
  fake_gpu::enter("cuDeviceGetPCIBusId");
  fake_gpu::Device device;
  if (const int result = device_for(ordinal, device); result != CUDA_SUCCESS) return result;
  fake_gpu::copy_string(device.pci_bus_id, bus_id, static_cast<std::size_t>(length));
  return CUDA_SUCCESS;
}

}  // extern "C"
