// The CPU's microarchitecture as archspec names it (for `__archspec`),
// detected from CPUID with the tables in metadata/ (archspec_x86_64.tsv,
// x86_cpuid_features.tsv). Debian has no archspec package, and this is the
// only part of it gpuenv needs.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::system {

struct CpuIdentity {
  std::string vendor;               // "GenuineIntel", "AuthenticAMD"
  std::set<std::string> features;   // Linux /proc/cpuinfo flag names
};

// Reads CPUID (x86-64 only; nullopt elsewhere). A feature that needs
// register state the OS has not enabled (AVX, AVX-512, AMX) is left out, as
// Linux leaves it out of /proc/cpuinfo.
std::optional<CpuIdentity> read_cpu_identity();

struct Microarchitecture {
  std::string name;
  std::vector<std::string> parents;
  std::string vendor;  // "generic" for the x86-64 levels
  std::set<std::string> features;
};

// archspec's x86-64 family, in archspec's order (which breaks ties).
std::vector<Microarchitecture> load_x86_64_microarchitectures();

// What archspec.cpu.detect.host() picks: among the entries the CPU
// satisfies (vendor matches or is generic, all features present), the best
// generic level, then the deepest vendor entry that descends from it.
std::string select_microarchitecture(const std::vector<Microarchitecture>& table, const CpuIdentity& cpu);

// The name for this machine; empty when it is not x86-64 (CEP 30 then says
// to use the platform's architecture, version 0).
std::string detect_microarchitecture(std::string_view machine);

}  // namespace gpuenv::system
