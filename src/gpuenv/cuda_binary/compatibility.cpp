#include "gpuenv/cuda_binary/compatibility.hpp"

#include <algorithm>
#include <charconv>

namespace gpuenv::cuda_binary {
namespace {

std::optional<std::pair<int, int>> parse_major_minor(std::string_view text) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  int major = 0;
  int minor = 0;
  auto [major_end, major_error] = std::from_chars(text.data(), text.data() + dot, major);
  auto [minor_end, minor_error] = std::from_chars(text.data() + dot + 1, text.data() + text.size(), minor);
  if (major_error != std::errc{} || minor_error != std::errc{} || major_end != text.data() + dot ||
      minor_end != text.data() + text.size())
    return std::nullopt;
  return std::pair{major, minor};
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  return text;
}

std::string ptx_name(const PtxTarget& target) {
  return target.arch.compute_name() + " (PTX ISA " + to_string(target.isa) + ")";
}

std::string listed_targets(const ListingSummary& code) {
  std::string out;
  for (const auto& arch : code.sass) out += (out.empty() ? "" : ", ") + arch.sm_name();
  for (const auto& target : code.ptx) out += (out.empty() ? "" : ", ") + target.arch.compute_name();
  return out.empty() ? "nothing" : out;
}

}  // namespace

std::optional<PtxIsaTable> PtxIsaTable::parse(std::string_view tsv, std::string& error) {
  PtxIsaTable table;
  bool header_seen = false;
  while (!tsv.empty()) {
    const auto end = tsv.find('\n');
    auto line = trim(tsv.substr(0, end));
    tsv = end == std::string_view::npos ? std::string_view{} : tsv.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;
    if (!header_seen) {
      header_seen = true;
      continue;
    }
    const auto tab = line.find('\t');
    auto isa = tab == std::string_view::npos ? std::nullopt : parse_major_minor(line.substr(0, tab));
    auto cuda = tab == std::string_view::npos ? std::nullopt : parse_major_minor(line.substr(tab + 1));
    if (!isa || !cuda) {
      error = "malformed row in the PTX ISA table: '" + std::string(line) + "'";
      return std::nullopt;
    }
    table.rows_.push_back({{isa->first, isa->second}, {cuda->first, cuda->second}});
  }
  std::sort(table.rows_.begin(), table.rows_.end(), [](const Row& a, const Row& b) { return a.isa > b.isa; });
  return table;
}

std::optional<CudaRelease> PtxIsaTable::first_cuda_for(PtxIsaVersion isa) const {
  for (const auto& row : rows_)
    if (row.isa == isa) return row.first_cuda;
  // An ISA between known rows (never seen in practice) needs what the next
  // newer known row needs; one above the table needs an unknown driver.
  std::optional<CudaRelease> newer;
  for (const auto& row : rows_)
    if (row.isa > isa) newer = row.first_cuda;
  return newer;
}

std::string_view to_string(RunVerdict verdict) {
  switch (verdict) {
    case RunVerdict::native: return "native";
    case RunVerdict::ptx_jit: return "ptx_jit";
    case RunVerdict::ptx_too_new: return "ptx_too_new";
    case RunVerdict::no_kernel_image: break;
  }
  return "no_kernel_image";
}

bool sass_runs_on(const GpuArchitecture& sass, const GpuArchitecture& gpu) {
  if (sass.variant == ArchVariant::arch_specific) return sass.number == gpu.number;
  return sass.major() == gpu.major() && sass.minor() <= gpu.minor();
}

bool ptx_compiles_for(const GpuArchitecture& ptx, const GpuArchitecture& gpu) {
  switch (ptx.variant) {
    case ArchVariant::arch_specific: return ptx.number == gpu.number;
    case ArchVariant::family: return ptx.major() == gpu.major() && ptx.minor() <= gpu.minor();
    case ArchVariant::portable: break;
  }
  return std::pair{ptx.major(), ptx.minor()} <= std::pair{gpu.major(), gpu.minor()};
}

Judgement judge(const ListingSummary& code, const GpuArchitecture& gpu, const std::optional<CudaRelease>& driver_cuda,
                const PtxIsaTable& ptx_isa_table) {
  Judgement judgement;
  // The runtime prefers the SASS of the highest architecture that fits.
  for (auto it = code.sass.rbegin(); it != code.sass.rend(); ++it) {
    if (!sass_runs_on(*it, gpu)) continue;
    judgement.verdict = RunVerdict::native;
    judgement.used_target = it->sm_name();
    judgement.explanation = "runs natively (" + it->sm_name() + " machine code)";
    return judgement;
  }
  // Then the PTX of the highest architecture that fits, if the driver can compile it.
  const PtxTarget* too_new = nullptr;
  std::optional<CudaRelease> too_new_needs;
  for (auto it = code.ptx.rbegin(); it != code.ptx.rend(); ++it) {
    if (!ptx_compiles_for(it->arch, gpu)) continue;
    const auto needs = ptx_isa_table.first_cuda_for(it->isa);
    if (driver_cuda && (!needs || *needs > *driver_cuda)) {
      if (!too_new) {
        too_new = &*it;
        too_new_needs = needs;
      }
      continue;
    }
    judgement.verdict = RunVerdict::ptx_jit;
    judgement.used_target = ptx_name(*it);
    judgement.explanation = "runs through PTX JIT from " + ptx_name(*it) + ": the driver compiles it for " +
                            gpu.sm_name() + " at first load (slow first start; cached afterwards)";
    return judgement;
  }
  if (too_new) {
    judgement.verdict = RunVerdict::ptx_too_new;
    judgement.used_target = ptx_name(*too_new);
    judgement.runtime_error = "the provided PTX was compiled with an unsupported toolchain";
    judgement.explanation = "cannot run: its only code for " + gpu.sm_name() + " is " + ptx_name(*too_new) +
                            ", which needs a driver for CUDA " +
                            (too_new_needs ? ">= " + too_new_needs->str() : "newer than any gpuenv knows") +
                            "; this driver provides CUDA " + driver_cuda->str() +
                            ": upgrade the driver, or install a build of the package with " + gpu.sm_name() +
                            " machine code";
    return judgement;
  }
  judgement.verdict = RunVerdict::no_kernel_image;
  judgement.runtime_error = "no kernel image is available for execution on the device";
  judgement.explanation = "cannot run on " + gpu.sm_name() + ": it carries " + listed_targets(code) +
                          "; install a build of the package with " + gpu.sm_name() + " machine code or PTX for " +
                          gpu.compute_name() + " or lower";
  return judgement;
}

}  // namespace gpuenv::cuda_binary
