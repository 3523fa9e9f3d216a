#include "gpuenv/system/cuda_probe_child.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpuenv/system/cuda_report.hpp"
#include "gpuenv/system/driver_abi.hpp"
#include "gpuenv/system/probe_transcript.hpp"

namespace gpuenv::system {
namespace {

// The file the loader actually opened for `handle`, symbolic links resolved.
std::string loaded_file(void* handle, const std::string& requested) {
  link_map* map = nullptr;
  std::string path = requested;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    path = map->l_name;
  }
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) != nullptr) return resolved;
  return path;
}

// Loads the first candidate that loads; reports each attempt.
void* open_first(ProbeWriter& out, const std::vector<std::string>& candidates) {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& candidate = candidates[i];
    out.line("searched", {candidate});
    out.call("dlopen(" + candidate + ")");
    ::dlerror();
    void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      out.line("loaded", {std::to_string(i), loaded_file(handle, candidate)});
      return handle;
    }
    const char* reason = ::dlerror();
    // Whether the file is there at all tells "missing" from "broken" without
    // reading the (translated) loader message; a bare name has no path to ask.
    struct stat info {};
    const bool is_path = candidate.find('/') != std::string::npos;
    const char* exists = !is_path ? "?" : ::stat(candidate.c_str(), &info) == 0 ? "1" : "0";
    out.line("load_error", {candidate, reason != nullptr ? reason : "unknown loader error", exists});
  }
  return nullptr;
}

template <typename Function>
Function symbol(void* handle, const char* name) {
  return reinterpret_cast<Function>(::dlsym(handle, name));
}

std::string c_string(const char* buffer, std::size_t capacity) {
  return std::string(buffer, ::strnlen(buffer, capacity));
}

// NVML prints PCI domains with 8 digits ("00000000:01:00.0"); CUDA and
// /proc/driver/nvidia/gpus use 4. Use the short form everywhere.
std::string short_pci_domain(std::string bus_id) {
  const auto colon = bus_id.find(':');
  if (colon == 8 && bus_id.starts_with("0000")) bus_id.erase(0, 4);
  for (auto& c : bus_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return bus_id;
}

void probe_cuda_device(ProbeWriter& out, void* handle, int index) {
  using namespace abi;
  const auto device_get = symbol<cuDeviceGet_t>(handle, "cuDeviceGet");
  const auto get_name = symbol<cuDeviceGetName_t>(handle, "cuDeviceGetName");
  const auto get_attribute = symbol<cuDeviceGetAttribute_t>(handle, "cuDeviceGetAttribute");
  const auto total_mem = symbol<cuDeviceTotalMem_v2_t>(handle, "cuDeviceTotalMem_v2");
  // _v2 is the current entry point (CUDA >= 11.4); older drivers only have the first.
  auto get_uuid = symbol<cuDeviceGetUuid_t>(handle, "cuDeviceGetUuid_v2");
  if (get_uuid == nullptr) get_uuid = symbol<cuDeviceGetUuid_t>(handle, "cuDeviceGetUuid");
  const auto get_pci = symbol<cuDeviceGetPCIBusId_t>(handle, "cuDeviceGetPCIBusId");
  const auto index_text = std::to_string(index);
  const auto field = [&](std::string_view name, std::string_view value) {
    out.line("device", {index_text, name, value});
  };

  CUdevice device = 0;
  if (device_get == nullptr) {
    out.line("missing", {"cuDeviceGet"});
    return;
  }
  out.call("cuDeviceGet");
  if (const CUresult result = device_get(&device, index); result != CUDA_SUCCESS) {
    out.error("cuDeviceGet", result);
    return;
  }
  if (get_name != nullptr) {
    char name[256] = {};
    out.call("cuDeviceGetName");
    if (const CUresult result = get_name(name, sizeof name - 1, device); result == CUDA_SUCCESS) {
      field("name", c_string(name, sizeof name));
    } else {
      out.error("cuDeviceGetName", result);
    }
  }
  if (get_attribute != nullptr) {
    int major = 0;
    int minor = 0;
    out.call("cuDeviceGetAttribute");
    const CUresult major_result =
        get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    const CUresult minor_result =
        get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    if (major_result == CUDA_SUCCESS && minor_result == CUDA_SUCCESS) {
      field("cc", std::to_string(major) + "." + std::to_string(minor));
    } else {
      out.error("cuDeviceGetAttribute", major_result != CUDA_SUCCESS ? major_result : minor_result);
    }
  } else {
    out.line("missing", {"cuDeviceGetAttribute"});
  }
  if (total_mem != nullptr) {
    std::size_t bytes = 0;
    out.call("cuDeviceTotalMem_v2");
    if (const CUresult result = total_mem(&bytes, device); result == CUDA_SUCCESS) {
      field("memory", std::to_string(bytes));
    } else {
      out.error("cuDeviceTotalMem_v2", result);
    }
  }
  if (get_uuid != nullptr) {
    CUuuid uuid{};
    out.call("cuDeviceGetUuid");
    if (const CUresult result = get_uuid(&uuid, device); result == CUDA_SUCCESS) {
      field("uuid", format_gpu_uuid(uuid.bytes));
    } else {
      out.error("cuDeviceGetUuid", result);
    }
  }
  if (get_pci != nullptr) {
    char bus_id[64] = {};
    out.call("cuDeviceGetPCIBusId");
    if (const CUresult result = get_pci(bus_id, sizeof bus_id - 1, device); result == CUDA_SUCCESS) {
      field("pci", short_pci_domain(c_string(bus_id, sizeof bus_id)));
    } else {
      out.error("cuDeviceGetPCIBusId", result);
    }
  }
}

void probe_nvml_device(ProbeWriter& out, void* handle, unsigned int index) {
  using namespace abi;
  const auto get_handle = symbol<nvmlDeviceGetHandleByIndex_v2_t>(handle, "nvmlDeviceGetHandleByIndex_v2");
  const auto get_name = symbol<nvmlDeviceGetName_t>(handle, "nvmlDeviceGetName");
  const auto get_capability =
      symbol<nvmlDeviceGetCudaComputeCapability_t>(handle, "nvmlDeviceGetCudaComputeCapability");
  const auto get_memory = symbol<nvmlDeviceGetMemoryInfo_t>(handle, "nvmlDeviceGetMemoryInfo");
  const auto get_uuid = symbol<nvmlDeviceGetUUID_t>(handle, "nvmlDeviceGetUUID");
  const auto get_pci = symbol<nvmlDeviceGetPciInfo_v3_t>(handle, "nvmlDeviceGetPciInfo_v3");
  const auto index_text = std::to_string(index);
  const auto field = [&](std::string_view name, std::string_view value) {
    out.line("device", {index_text, name, value});
  };
  if (get_handle == nullptr) {
    out.line("missing", {"nvmlDeviceGetHandleByIndex_v2"});
    return;
  }
  nvmlDevice_t device = nullptr;
  out.call("nvmlDeviceGetHandleByIndex_v2");
  if (const nvmlReturn_t result = get_handle(index, &device); result != NVML_SUCCESS) {
    out.error("nvmlDeviceGetHandleByIndex_v2", result);
    return;
  }
  if (get_name != nullptr) {
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    out.call("nvmlDeviceGetName");
    if (const nvmlReturn_t result = get_name(device, name, sizeof name); result == NVML_SUCCESS) {
      field("name", c_string(name, sizeof name));
    } else {
      out.error("nvmlDeviceGetName", result);
    }
  }
  if (get_capability != nullptr) {
    int major = 0;
    int minor = 0;
    out.call("nvmlDeviceGetCudaComputeCapability");
    if (const nvmlReturn_t result = get_capability(device, &major, &minor); result == NVML_SUCCESS) {
      field("cc", std::to_string(major) + "." + std::to_string(minor));
    } else {
      out.error("nvmlDeviceGetCudaComputeCapability", result);
    }
  } else {
    out.line("missing", {"nvmlDeviceGetCudaComputeCapability"});
  }
  if (get_memory != nullptr) {
    nvmlMemory_t memory{};
    out.call("nvmlDeviceGetMemoryInfo");
    if (const nvmlReturn_t result = get_memory(device, &memory); result == NVML_SUCCESS) {
      field("memory", std::to_string(memory.total));
    } else {
      out.error("nvmlDeviceGetMemoryInfo", result);
    }
  }
  if (get_uuid != nullptr) {
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    out.call("nvmlDeviceGetUUID");
    if (const nvmlReturn_t result = get_uuid(device, uuid, sizeof uuid); result == NVML_SUCCESS) {
      field("uuid", c_string(uuid, sizeof uuid));
    } else {
      out.error("nvmlDeviceGetUUID", result);
    }
  }
  if (get_pci != nullptr) {
    nvmlPciInfo_t pci{};
    out.call("nvmlDeviceGetPciInfo_v3");
    if (const nvmlReturn_t result = get_pci(device, &pci); result == NVML_SUCCESS) {
      field("pci", short_pci_domain(c_string(pci.busId, sizeof pci.busId)));
    } else {
      out.error("nvmlDeviceGetPciInfo_v3", result);
    }
  }
}

}  // namespace

int probe_libcuda_in_child(int fd, const std::vector<std::string>& candidates) {
  using namespace abi;
  ProbeWriter out(fd);
  void* handle = open_first(out, candidates);
  if (handle == nullptr) {
    out.line("done");
    return 0;
  }
  const auto init = symbol<cuInit_t>(handle, "cuInit");
  const auto driver_get_version = symbol<cuDriverGetVersion_t>(handle, "cuDriverGetVersion");
  if (init == nullptr || driver_get_version == nullptr) {
    out.line("missing", {init == nullptr ? "cuInit" : "cuDriverGetVersion"});
    out.line("done");
    return 0;
  }
  out.call("cuInit");
  const CUresult init_result = init(0);
  if (init_result != CUDA_SUCCESS) out.error("cuInit", init_result);
  // Asked even when cuInit failed: with no device (or a stub) the version
  // still tells what the installed driver supports.
  int version = 0;
  out.call("cuDriverGetVersion");
  if (const CUresult result = driver_get_version(&version); result == CUDA_SUCCESS) {
    out.line("driver_version", {std::to_string(version)});
  } else {
    out.error("cuDriverGetVersion", result);
  }
  if (init_result != CUDA_SUCCESS) {
    out.line("done");
    return 0;
  }
  const auto device_get_count = symbol<cuDeviceGetCount_t>(handle, "cuDeviceGetCount");
  if (device_get_count == nullptr) {
    out.line("missing", {"cuDeviceGetCount"});
    out.line("done");
    return 0;
  }
  int count = 0;
  out.call("cuDeviceGetCount");
  if (const CUresult result = device_get_count(&count); result != CUDA_SUCCESS) {
    out.error("cuDeviceGetCount", result);
    out.line("done");
    return 0;
  }
  out.line("device_count", {std::to_string(count)});
  for (int index = 0; index < count; ++index) probe_cuda_device(out, handle, index);
  out.line("done");
  return 0;
}

int probe_nvml_in_child(int fd, const std::vector<std::string>& candidates) {
  using namespace abi;
  ProbeWriter out(fd);
  void* handle = open_first(out, candidates);
  if (handle == nullptr) {
    out.line("done");
    return 0;
  }
  const auto init = symbol<nvmlInit_v2_t>(handle, "nvmlInit_v2");
  const auto cuda_version = symbol<nvmlSystemGetCudaDriverVersion_v2_t>(handle, "nvmlSystemGetCudaDriverVersion_v2");
  if (init == nullptr || cuda_version == nullptr) {
    out.line("missing", {init == nullptr ? "nvmlInit_v2" : "nvmlSystemGetCudaDriverVersion_v2"});
    out.line("done");
    return 0;
  }
  out.call("nvmlInit_v2");
  if (const nvmlReturn_t result = init(); result != NVML_SUCCESS) {
    out.error("nvmlInit_v2", result);
    out.line("done");
    return 0;
  }
  int version = 0;
  out.call("nvmlSystemGetCudaDriverVersion_v2");
  if (const nvmlReturn_t result = cuda_version(&version); result == NVML_SUCCESS) {
    out.line("driver_version", {std::to_string(version)});
  } else {
    out.error("nvmlSystemGetCudaDriverVersion_v2", result);
  }
  if (const auto release = symbol<nvmlSystemGetDriverVersion_t>(handle, "nvmlSystemGetDriverVersion")) {
    char text[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
    out.call("nvmlSystemGetDriverVersion");
    if (release(text, sizeof text) == NVML_SUCCESS) out.line("release", {c_string(text, sizeof text)});
  }
  const auto get_count = symbol<nvmlDeviceGetCount_v2_t>(handle, "nvmlDeviceGetCount_v2");
  unsigned int count = 0;
  if (get_count == nullptr) {
    out.line("missing", {"nvmlDeviceGetCount_v2"});
  } else {
    out.call("nvmlDeviceGetCount_v2");
    if (const nvmlReturn_t result = get_count(&count); result == NVML_SUCCESS) {
      out.line("device_count", {std::to_string(count)});
      for (unsigned int index = 0; index < count; ++index) probe_nvml_device(out, handle, index);
    } else {
      out.error("nvmlDeviceGetCount_v2", result);
    }
  }
  if (const auto shutdown = symbol<nvmlShutdown_t>(handle, "nvmlShutdown")) shutdown();
  out.line("done");
  return 0;
}

}  // namespace gpuenv::system
