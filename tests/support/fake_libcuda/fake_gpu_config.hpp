// What the fake driver libraries pretend, read from environment variables on
// every call (so one built library serves every test):
//
//   FAKE_CUDA_DRIVER_VERSION  cuDriverGetVersion's answer (default 13000)
//   FAKE_CUDA_DEVICES         ';'-separated devices, each
//                             "major.minor:name:memory_bytes[:uuid]" (uuid as 32 hex
//                             digits, dashes and a "GPU-" prefix allowed; default:
//                             derived from the index). Unset: one "9.0:NVIDIA H100:
//                             85899345920" device. Empty: no device.
//   FAKE_CUDA_INIT_ERROR      a CUresult for cuInit to return (34 = the stub:
//                             then every call returns 34, as the real stub does)
//   FAKE_CUDA_STUB_PATH_CONTAINS  act as the stub when this copy's own path contains it
//   FAKE_CUDA_HANG            "1" (= cuInit) or the name of a function that never returns
//   FAKE_CUDA_CRASH           "1" (= cuInit) or the name of a function that raises SIGSEGV
//   FAKE_CUDA_CALL_LOG        a file each call's name is appended to (a cache hit
//                             must leave it untouched)
//   FAKE_NVML_INIT_ERROR      an nvmlReturn_t for nvmlInit_v2 to return
//   FAKE_NVML_DRIVER_RELEASE  nvmlSystemGetDriverVersion's answer (default 580.159.04)
//
// libcuda honours CUDA_VISIBLE_DEVICES (indices or GPU-uuid prefixes, stopping at
// the first entry that matches nothing, as CUDA does); NVML ignores it, like the
// real one.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace fake_gpu {

struct Device {
  int major = 0;
  int minor = 0;
  std::string name;
  unsigned long long memory = 0;
  unsigned char uuid[16] = {};
  std::string pci_bus_id;
};

inline std::string env(const char* name, const char* fallback = "") {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

inline bool env_set(const char* name) { return std::getenv(name) != nullptr; }

inline int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

inline void parse_uuid(const std::string& text, unsigned char (&bytes)[16]) {
  std::string hex;
  for (char c : text) {
    if (std::isxdigit(static_cast<unsigned char>(c))) hex += c;
  }
  for (std::size_t i = 0; i < 16 && 2 * i + 1 < hex.size(); ++i) {
    bytes[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
}

inline std::string uuid_text(const unsigned char (&bytes)[16]) {
  static const char* digits = "0123456789abcdef";
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += digits[bytes[i] >> 4];
    text += digits[bytes[i] & 15];
  }
  return text;
}

// Every device the fake machine has, before CUDA_VISIBLE_DEVICES.
inline std::vector<Device> all_devices() {
  const std::string spec = env_set("FAKE_CUDA_DEVICES") ? env("FAKE_CUDA_DEVICES") : "9.0:NVIDIA H100:85899345920";
  std::vector<Device> devices;
  if (spec.empty()) return devices;
  for (const auto& entry : split(spec, ';')) {
    const auto fields = split(entry, ':');
    Device device;
    const auto dot = fields[0].find('.');
    device.major = std::atoi(fields[0].substr(0, dot).c_str());
    device.minor = dot == std::string::npos ? 0 : std::atoi(fields[0].substr(dot + 1).c_str());
    device.name = fields.size() > 1 ? fields[1] : "NVIDIA Fake GPU";
    device.memory = fields.size() > 2 ? std::strtoull(fields[2].c_str(), nullptr, 10) : (1ull << 34);
    const int index = static_cast<int>(devices.size());
    if (fields.size() > 3 && !fields[3].empty()) {
      parse_uuid(fields[3].rfind("GPU-", 0) == 0 ? fields[3].substr(4) : fields[3], device.uuid);
    } else {
      for (int i = 0; i < 16; ++i) device.uuid[i] = static_cast<unsigned char>(0x10 * (index + 1) + i);
    }
    char bus[32];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", index + 1);
    device.pci_bus_id = bus;
    devices.push_back(device);
  }
  return devices;
}

// The devices CUDA shows after CUDA_VISIBLE_DEVICES.
inline std::vector<Device> visible_devices() {
  auto devices = all_devices();
  if (!env_set("CUDA_VISIBLE_DEVICES")) return devices;
  std::vector<Device> visible;
  const auto selection = env("CUDA_VISIBLE_DEVICES");
  if (selection.empty()) return visible;
  for (const auto& item : split(selection, ',')) {
    const Device* match = nullptr;
    if (!item.empty() && std::all_of(item.begin(), item.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      const auto index = static_cast<std::size_t>(std::atoi(item.c_str()));
      if (index < devices.size()) match = &devices[index];
    } else if (item.rfind("GPU-", 0) == 0) {
      for (const auto& device : devices) {
        if (uuid_text(device.uuid).rfind(item, 0) == 0) match = &device;
      }
    }
    if (match == nullptr) break;  // CUDA stops at the first invalid entry
    visible.push_back(*match);
  }
  return visible;
}

inline bool names(const char* variable, const char* function) {
  const auto value = env(variable);
  if (value.empty()) return false;
  return value == function || (value == "1" && std::strcmp(function, "cuInit") == 0);
}

// Logs the call, then hangs or crashes if the test asked this function to.
inline void enter(const char* function) {
  const auto log = env("FAKE_CUDA_CALL_LOG");
  if (!log.empty()) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const std::string line = std::string(function) + "\n";
      (void)!::write(fd, line.data(), line.size());
      ::close(fd);
    }
  }
  if (names("FAKE_CUDA_HANG", function)) {
    while (true) ::pause();
  }
  if (names("FAKE_CUDA_CRASH", function)) {
    // Die the way a crashing driver does, even under a sanitizer that would
    // otherwise catch the signal and exit normally.
    ::signal(SIGSEGV, SIG_DFL);
    ::raise(SIGSEGV);
  }
}

inline void copy_string(const std::string& text, char* buffer, std::size_t length) {
  if (length == 0) return;
  const auto count = std::min(text.size(), length - 1);
  std::memcpy(buffer, text.data(), count);
  buffer[count] = '\0';
}

}  // namespace fake_gpu
