#include "gpuenv/cuda_binary/device_code.hpp"

#include <charconv>
#include <string_view>

namespace gpuenv::cuda_binary {
namespace {

std::string variant_suffix(ArchVariant variant) {
  switch (variant) {
    case ArchVariant::arch_specific: return "a";
    case ArchVariant::family: return "f";
    case ArchVariant::portable: break;
  }
  return "";
}

bool consume_prefix(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

}  // namespace

std::string GpuArchitecture::sm_name() const {
  return "sm_" + std::to_string(number) + variant_suffix(variant);
}

std::string GpuArchitecture::compute_name() const {
  return "compute_" + std::to_string(number) + variant_suffix(variant);
}

std::optional<GpuArchitecture> parse_gpu_architecture(std::string_view text) {
  GpuArchitecture arch;
  if (!consume_prefix(text, "sm_")) consume_prefix(text, "compute_");
  if (text.ends_with('a')) {
    arch.variant = ArchVariant::arch_specific;
    text.remove_suffix(1);
  } else if (text.ends_with('f')) {
    arch.variant = ArchVariant::family;
    text.remove_suffix(1);
  }
  // "8.6" is how compute capabilities are usually written.
  if (auto dot = text.find('.'); dot != std::string_view::npos) {
    int major = 0;
    int minor = 0;
    auto major_text = text.substr(0, dot);
    auto minor_text = text.substr(dot + 1);
    auto [major_end, major_error] = std::from_chars(major_text.data(), major_text.data() + major_text.size(), major);
    auto [minor_end, minor_error] = std::from_chars(minor_text.data(), minor_text.data() + minor_text.size(), minor);
    if (major_error != std::errc{} || minor_error != std::errc{} || major_end != major_text.data() + major_text.size() ||
        minor_end != minor_text.data() + minor_text.size() || minor_text.size() != 1 || major < 1 || major > 99)
      return std::nullopt;
    arch.number = major * 10 + minor;
    return arch;
  }
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), arch.number);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty() || arch.number < 10 ||
      arch.number > 999)
    return std::nullopt;
  return arch;
}

std::string to_string(CodeKind kind) {
  switch (kind) {
    case CodeKind::sass: return "sass";
    case CodeKind::ptx: return "ptx";
    case CodeKind::lto_ir: return "lto-ir";
    case CodeKind::unknown: break;
  }
  return "unknown";
}

std::string to_string(Compression compression) {
  switch (compression) {
    case Compression::none: return "none";
    case Compression::zstd: return "zstd";
    case Compression::lz4: return "lz4";
    case Compression::unknown: break;
  }
  return "unknown";
}

std::string to_string(BinaryFormat format) {
  switch (format) {
    case BinaryFormat::elf_shared_library: return "shared library";
    case BinaryFormat::elf_executable: return "executable";
    case BinaryFormat::elf_object: return "object file";
    case BinaryFormat::static_archive: return "static archive";
    case BinaryFormat::fatbin: return "fatbin";
    case BinaryFormat::cubin: return "cubin";
    case BinaryFormat::ptx: break;
  }
  return "ptx";
}

std::string to_string(const PtxIsaVersion& version) {
  return std::to_string(version.major) + "." + std::to_string(version.minor);
}

std::string to_string(ReadErrorKind kind) {
  switch (kind) {
    case ReadErrorKind::unreadable: return "unreadable";
    case ReadErrorKind::not_a_binary: return "not_a_binary";
    case ReadErrorKind::unsupported: return "unsupported";
    case ReadErrorKind::malformed: return "malformed";
    case ReadErrorKind::too_large: break;
  }
  return "too_large";
}

std::string target_name(const DeviceCode& code) {
  return code.kind == CodeKind::sass ? code.arch.sm_name() : code.arch.compute_name();
}

}  // namespace gpuenv::cuda_binary
