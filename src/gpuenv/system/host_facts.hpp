// Facts about the running system that virtual packages are made of, other
// than the GPU: the C library, the kernel, the CPU.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuenv::system {

struct HostFacts {
  // gnu_get_libc_version() ("2.36"); nullopt when the C library is not glibc.
  std::optional<std::string> glibc_version;
  // uname's release ("6.1.0-18-amd64"); empty when unknown.
  std::string kernel_release;
  // uname's machine ("x86_64").
  std::string machine;
  // archspec's name for this CPU ("x86_64_v4", "zen4"); empty when unknown.
  std::string microarchitecture;
};

// Reads the facts of this machine (a few system calls and CPUID; no files).
HostFacts detect_host_facts();

// The upstream kernel version in a release string, as CEP 30 and conda cut
// it: the leading "N.N[.N[.N]]" ("6.1.0-18-amd64" -> "6.1.0",
// "5.15.153.1-microsoft-standard-WSL2" -> "5.15.153.1"); nullopt if none.
std::optional<std::string> linux_version_from_release(std::string_view release);

// "2.36" from "2.36" or "2.36.9000": glibc's major.minor.
std::optional<std::string> major_minor(std::string_view version);

}  // namespace gpuenv::system
