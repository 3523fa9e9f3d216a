// __archspec: archspec's host() choice reproduced from CPUID.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpuenv/system/archspec.hpp"
#include "gpuenv/system/metadata.hpp"

namespace gpuenv::system {
namespace {

std::set<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::set<std::string> set;
  for (std::string word; in >> word;) set.insert(word);
  return set;
}

// /proc/cpuinfo flags of real machines (the parts archspec looks at).
const char* haswell_flags =
    "fpu mmx sse sse2 pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand "
    "lahf_lm abm fsgsbase bmi1 avx2 bmi2 erms invpcid xsaveopt";
const char* sapphire_rapids_flags =
    "mmx sse sse2 pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand lahf_lm "
    "abm fsgsbase bmi1 avx2 bmi2 avx512f avx512dq rdseed adx avx512ifma clflushopt clwb avx512cd sha_ni "
    "avx512bw avx512vl xsaveopt xsavec avx512vbmi umip pku waitpkg avx512_vbmi2 gfni vaes vpclmulqdq "
    "avx512_vnni avx512_bitalg avx512_vpopcntdq rdpid cldemote movdiri movdir64b serialize amx_bf16 "
    "avx512_fp16 amx_tile amx_int8 avx_vnni avx512_bf16";
// A Zen 5 EPYC inside a virtual machine that hides rdseed, pku and others:
// archspec falls back to the best generic level.
const char* masked_zen5_flags =
    "fpu mmx sse sse2 pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand "
    "lahf_lm abm sse4a fsgsbase tsc_adjust bmi1 avx2 bmi2 avx512f avx512dq adx avx512ifma clflushopt clwb "
    "avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec avx_vnni avx512_bf16 clzero avx512vbmi umip "
    "avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq rdpid avx512_vp2intersect";

std::string pick(const char* vendor, const char* flags) {
  return select_microarchitecture(load_x86_64_microarchitectures(), CpuIdentity{vendor, words(flags)});
}

TEST(SystemArchspec, NamedIntelFamilies) {
  EXPECT_EQ(pick("GenuineIntel", haswell_flags), "haswell");
  EXPECT_EQ(pick("GenuineIntel", sapphire_rapids_flags), "sapphirerapids");
}

TEST(SystemArchspec, VendorMustMatchForNamedFamilies) {
  // The same features on another vendor's CPU only reach the generic level.
  EXPECT_EQ(pick("AuthenticAMD", haswell_flags), "x86_64_v3");
}

TEST(SystemArchspec, GenericLevelsWhenFeaturesAreHidden) {
  EXPECT_EQ(pick("AuthenticAMD", masked_zen5_flags), "x86_64_v4");
  EXPECT_EQ(pick("AuthenticAMD", "mmx sse sse2 ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm"), "x86_64_v2");
  // On Intel the same features make a Nehalem, a descendant of x86_64_v2.
  EXPECT_EQ(pick("GenuineIntel", "mmx sse sse2 ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm"), "nehalem");
  EXPECT_EQ(pick("GenuineIntel", "mmx sse sse2"), "x86_64");
}

TEST(SystemArchspec, FullZenFeatureSetsNameTheFamily) {
  auto zen4 = words(masked_zen5_flags);
  for (const char* flag : {"rdseed", "pku", "flush_l1d"}) zen4.insert(flag);
  EXPECT_EQ(select_microarchitecture(load_x86_64_microarchitectures(), {"AuthenticAMD", zen4}), "zen4");
  auto zen5 = zen4;
  for (const char* flag : {"movdiri", "movdir64b", "cppc", "ibrs_enhanced"}) zen5.insert(flag);
  EXPECT_EQ(select_microarchitecture(load_x86_64_microarchitectures(), {"AuthenticAMD", zen5}), "zen5");
}

TEST(SystemArchspec, EveryFeatureTheTableAsksForCanBeRead) {
  // Names Linux spells differently ('pni', 'sha_ni') can never match, as in
  // archspec on Linux; everything else must have a CPUID recipe.
  const auto cpuid = load_metadata_table("x86_cpuid_features.tsv");
  std::set<std::string> readable;
  for (const auto& row : cpuid.rows) readable.emplace(row[cpuid.column("name")]);
  for (const auto& entry : load_x86_64_microarchitectures()) {
    for (const auto& feature : entry.features) {
      if (feature == "sse3" || feature == "sha") continue;
      EXPECT_TRUE(readable.contains(feature)) << entry.name << " needs " << feature;
    }
  }
}

TEST(SystemArchspec, TableParentsExist) {
  const auto table = load_x86_64_microarchitectures();
  std::set<std::string> names;
  for (const auto& entry : table) names.insert(entry.name);
  for (const auto& entry : table) {
    for (const auto& parent : entry.parents) EXPECT_TRUE(names.contains(parent)) << entry.name << " <- " << parent;
  }
}

#if defined(__x86_64__)
TEST(SystemArchspec, CpuidAgreesWithProcCpuinfo) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::set<std::string> linux_flags;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      linux_flags = words(line.substr(line.find(':') + 1));
      break;
    }
  }
  if (linux_flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags here";
  const auto cpu = read_cpu_identity();
  ASSERT_TRUE(cpu.has_value());
  EXPECT_TRUE(cpu->vendor == "GenuineIntel" || cpu->vendor == "AuthenticAMD") << cpu->vendor;
  // Features the kernel may hide although CPUID reports them: RDSEED on
  // Zen 5 parts with the RDSEED erratum (Linux 6.16+ clears it).
  const std::set<std::string> kernel_may_clear = {"rdseed"};
  const auto table = load_metadata_table("x86_cpuid_features.tsv");
  for (const auto& row : table.rows) {
    const std::string name(row[table.column("name")]);
    // Linux derives ibrs_enhanced from an MSR on Intel; CPUID cannot see it.
    if (name == "ibrs_enhanced" && cpu->vendor != "AuthenticAMD") continue;
    if (linux_flags.contains(name)) {
      EXPECT_TRUE(cpu->features.contains(name)) << name << " is in /proc/cpuinfo but not read from CPUID";
    } else if (!kernel_may_clear.contains(name)) {
      EXPECT_FALSE(cpu->features.contains(name)) << name << " is read from CPUID but Linux does not show it";
    }
  }
}

TEST(SystemArchspec, ThisMachineHasAName) {
  const auto name = detect_microarchitecture("x86_64");
  EXPECT_FALSE(name.empty());
  EXPECT_EQ(detect_microarchitecture("aarch64"), "");
}
#endif

}  // namespace
}  // namespace gpuenv::system
