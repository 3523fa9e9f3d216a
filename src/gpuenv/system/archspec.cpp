#include "gpuenv/system/archspec.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "gpuenv/system/metadata.hpp"

namespace gpuenv::system {
namespace {

std::vector<std::string_view> split_words(std::string_view text, char separator) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const auto end = text.find(separator);
    const auto word = text.substr(0, end);
    if (!word.empty() && word != "-") words.push_back(word);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return words;
}

#if defined(__x86_64__) || defined(__i386__)

struct Registers {
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

std::uint32_t parse_hex(std::string_view text) {
  if (text.starts_with("0x")) text.remove_prefix(2);
  std::uint32_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return value;
}

// XCR0 bits the OS sets when it saves a register file on context switches.
constexpr std::uint64_t xcr0_ymm = 0x6;     // SSE + AVX state
constexpr std::uint64_t xcr0_zmm = 0xe6;    // + opmask, ZMM_Hi256, Hi16_ZMM
constexpr std::uint64_t xcr0_amx = 0x60000; // XTILECFG + XTILEDATA

std::uint64_t read_xcr0(const Registers& leaf1) {
  constexpr std::uint32_t osxsave = 1u << 27;
  if ((leaf1.ecx & osxsave) == 0) return 0;
  std::uint32_t low = 0;
  std::uint32_t high = 0;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (static_cast<std::uint64_t>(high) << 32) | low;
}

#endif

}  // namespace

std::optional<CpuIdentity> read_cpu_identity() {
#if defined(__x86_64__) || defined(__i386__)
  // CPUID traps to the hypervisor in a virtual machine (several microseconds
  // each), so each leaf is asked once and the highest leaves only once.
  const std::uint32_t max_basic = __get_cpuid_max(0, nullptr);
  const std::uint32_t max_extended = __get_cpuid_max(0x80000000, nullptr);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::optional<Registers>> leaves;
  const auto cpuid = [&](std::uint32_t leaf, std::uint32_t subleaf) -> std::optional<Registers> {
    const auto key = std::make_pair(leaf, subleaf);
    if (const auto found = leaves.find(key); found != leaves.end()) return found->second;
    std::optional<Registers> result;
    if (leaf <= (leaf >= 0x80000000 ? max_extended : max_basic)) {
      Registers r;
      __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
      result = r;
    }
    leaves.emplace(key, result);
    return result;
  };
  const auto vendor_leaf = cpuid(0, 0);
  const auto leaf1 = cpuid(1, 0);
  if (!vendor_leaf || !leaf1) return std::nullopt;

  CpuIdentity cpu;
  char vendor[13] = {};
  std::memcpy(vendor, &vendor_leaf->ebx, 4);
  std::memcpy(vendor + 4, &vendor_leaf->edx, 4);
  std::memcpy(vendor + 8, &vendor_leaf->ecx, 4);
  cpu.vendor = vendor;

  const auto xcr0 = read_xcr0(*leaf1);
  const auto table = load_metadata_table("x86_cpuid_features.tsv");
  const auto name_column = table.column("name");
  const auto leaf_column = table.column("leaf");
  const auto subleaf_column = table.column("subleaf");
  const auto register_column = table.column("register");
  const auto bit_column = table.column("bit");
  const auto state_column = table.column("os_state");
  for (const auto& row : table.rows) {
    const auto registers = cpuid(parse_hex(row[leaf_column]), parse_hex(row[subleaf_column]));
    if (!registers) continue;
    const auto register_name = row[register_column];
    const std::uint32_t value = register_name == "eax"   ? registers->eax
                                : register_name == "ebx" ? registers->ebx
                                : register_name == "ecx" ? registers->ecx
                                                         : registers->edx;
    int bit = 0;
    std::from_chars(row[bit_column].data(), row[bit_column].data() + row[bit_column].size(), bit);
    if ((value & (1u << bit)) == 0) continue;
    const auto state = row[state_column];
    const std::uint64_t needed = state == "ymm" ? xcr0_ymm : state == "zmm" ? xcr0_zmm
                                                         : state == "amx"   ? xcr0_amx
                                                                            : 0;
    if ((xcr0 & needed) != needed) continue;
    cpu.features.emplace(row[name_column]);
  }
  return cpu;
#else
  return std::nullopt;
#endif
}

std::vector<Microarchitecture> load_x86_64_microarchitectures() {
  const auto table = load_metadata_table("archspec_x86_64.tsv");
  const auto name_column = table.column("name");
  const auto from_column = table.column("from");
  const auto vendor_column = table.column("vendor");
  const auto features_column = table.column("features");
  std::vector<Microarchitecture> entries;
  for (const auto& row : table.rows) {
    Microarchitecture entry;
    entry.name = std::string(row[name_column]);
    for (const auto parent : split_words(row[from_column], ',')) entry.parents.emplace_back(parent);
    entry.vendor = std::string(row[vendor_column]);
    for (const auto feature : split_words(row[features_column], ' ')) entry.features.emplace(feature);
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string select_microarchitecture(const std::vector<Microarchitecture>& table, const CpuIdentity& cpu) {
  std::map<std::string, const Microarchitecture*, std::less<>> by_name;
  for (const auto& entry : table) by_name.emplace(entry.name, &entry);
  std::map<std::string, std::set<std::string>, std::less<>> ancestors;
  const std::function<const std::set<std::string>&(const Microarchitecture&)> ancestors_of =
      [&](const Microarchitecture& entry) -> const std::set<std::string>& {
    if (const auto found = ancestors.find(entry.name); found != ancestors.end()) return found->second;
    std::set<std::string> all;
    for (const auto& parent : entry.parents) {
      all.insert(parent);
      if (const auto found = by_name.find(parent); found != by_name.end()) {
        const auto& more = ancestors_of(*found->second);
        all.insert(more.begin(), more.end());
      }
    }
    return ancestors.emplace(entry.name, std::move(all)).first->second;
  };

  const auto compatible = [&](const Microarchitecture& entry) {
    const bool in_family = entry.name == "x86_64" || ancestors_of(entry).contains("x86_64");
    const bool vendor_ok = entry.vendor == "generic" || entry.vendor == cpu.vendor;
    const bool features_ok = std::includes(cpu.features.begin(), cpu.features.end(), entry.features.begin(),
                                           entry.features.end());
    return in_family && vendor_ok && features_ok;
  };
  // archspec's sort key: depth in the tree, then number of features; the
  // first of equal entries (in table order) wins, as Python's max() does.
  const auto better = [&](const Microarchitecture* a, const Microarchitecture* b) {
    const auto key_a = std::make_pair(ancestors_of(*a).size(), a->features.size());
    const auto key_b = std::make_pair(ancestors_of(*b).size(), b->features.size());
    return key_b > key_a;
  };

  const Microarchitecture* best_generic = nullptr;
  for (const auto& entry : table) {
    if (entry.vendor == "generic" && compatible(entry) && (best_generic == nullptr || better(best_generic, &entry))) {
      best_generic = &entry;
    }
  }
  if (best_generic == nullptr) return "x86_64";
  const Microarchitecture* best = nullptr;
  for (const auto& entry : table) {
    if (!compatible(entry) || !ancestors_of(entry).contains(best_generic->name)) continue;
    if (best == nullptr || better(best, &entry)) best = &entry;
  }
  return best != nullptr ? best->name : best_generic->name;
}

std::string detect_microarchitecture(std::string_view machine) {
  if (machine != "x86_64") return {};
  const auto cpu = read_cpu_identity();
  if (!cpu) return "x86_64";
  return select_microarchitecture(load_x86_64_microarchitectures(), *cpu);
}

}  // namespace gpuenv::system
