// The fatbin layout gpuenv relies on (learned from public descriptions and
// checked against cuobjdump on the CUDA 13 libraries; NVIDIA does not
// document it):
//   container header, 16 bytes: u32 magic, u16 version (1), u16 header size,
//                               u64 size of the entries that follow
//   entry header, >= 64 bytes: u16 kind (1 PTX, 2 cubin, 8 LTO-IR), u16 version,
//     u32 header size, u64 payload size (padded), u32 compressed size,
//     u32 options offset, u16 PTX ISA minor, u16 PTX ISA major, u32 arch
//     (86 for sm_86), u32 name offset, u32 name size, u64 flags, u64 reserved,
//     u64 uncompressed size; the payload follows the header.
#include "gpuenv/cuda_binary/fatbin_container.hpp"

#include "gpuenv/cuda_binary/elf_file.hpp"

#include <fmt/core.h>

#include <cstring>

namespace gpuenv::cuda_binary::detail {
namespace {

constexpr std::uint64_t container_header_size = 16;
constexpr std::uint64_t entry_header_min_size = 64;
// No real header comes near this; it keeps a hostile one from being believed.
constexpr std::uint64_t entry_header_max_size = 4096;

constexpr std::uint16_t kind_ptx = 1;
constexpr std::uint16_t kind_cubin = 2;
constexpr std::uint16_t kind_lto_ir = 8;

constexpr std::uint64_t flag_lz4 = 0x2000;   // `--compress-mode=speed`
constexpr std::uint64_t flag_zstd = 0x8000;  // CUDA 13's default for PTX, `-compress-all`
constexpr std::uint64_t flag_encoded = 0x10000;  // LTO-IR payloads are stored encoded
constexpr std::uint64_t flag_arch_specific = 0x100000;
constexpr std::uint64_t flag_family = 0x200000;

struct EntryHeader {
  std::uint16_t kind;
  std::uint32_t header_size;
  std::uint64_t payload_size;
  std::uint32_t compressed_size;
  std::uint16_t ptx_minor;
  std::uint16_t ptx_major;
  std::uint32_t arch;
  std::uint64_t flags;
  std::uint64_t uncompressed_size;
};

EntryHeader read_entry_header(const ByteSpan& span, std::uint64_t at) {
  return {span.read<std::uint16_t>(at),         span.read<std::uint32_t>(at + 4),
          span.read<std::uint64_t>(at + 8),     span.read<std::uint32_t>(at + 16),
          span.read<std::uint16_t>(at + 24),    span.read<std::uint16_t>(at + 26),
          span.read<std::uint32_t>(at + 28),    span.read<std::uint64_t>(at + 40),
          span.read<std::uint64_t>(at + 56)};
}

bool all_zero(const ByteSpan& span, std::uint64_t from, std::uint64_t to) {
  for (auto at = from; at < to; ++at)
    if (span.data[at] != 0) return false;
  return true;
}

// Why an entry header cannot be believed, or empty when it can.
std::string entry_header_problem(const EntryHeader& header, std::uint64_t room) {
  if (header.header_size < entry_header_min_size || header.header_size > entry_header_max_size)
    return fmt::format("an entry header claims {} bytes (expected 64 to 4096)", header.header_size);
  if (header.header_size > room)
    return fmt::format("an entry header of {} bytes runs past the container ({} bytes left)", header.header_size,
                       room);
  if (header.payload_size > room - header.header_size)
    return fmt::format("an entry claims a {}-byte payload but only {} bytes are left in its container",
                       header.payload_size, room - header.header_size);
  if (header.arch == 0 || header.arch > 9999) return fmt::format("an entry names architecture {}", header.arch);
  if ((header.flags & (flag_lz4 | flag_zstd)) && !(header.flags & flag_encoded) &&
      (header.compressed_size == 0 || header.compressed_size > header.payload_size))
    return fmt::format("a compressed entry claims {} compressed bytes in a {}-byte payload", header.compressed_size,
                       header.payload_size);
  return {};
}

DeviceCode describe_entry(const EntryHeader& header, std::uint64_t payload_file_offset) {
  DeviceCode code;
  switch (header.kind) {
    case kind_ptx: code.kind = CodeKind::ptx; break;
    case kind_cubin: code.kind = CodeKind::sass; break;
    case kind_lto_ir: code.kind = CodeKind::lto_ir; break;
    default: code.kind = CodeKind::unknown; break;
  }
  code.arch.number = static_cast<int>(header.arch);
  if (header.flags & flag_arch_specific)
    code.arch.variant = ArchVariant::arch_specific;
  else if (header.flags & flag_family)
    code.arch.variant = ArchVariant::family;
  if (code.kind == CodeKind::ptx) code.ptx_isa = PtxIsaVersion{header.ptx_major, header.ptx_minor};
  if (header.flags & flag_encoded)
    code.compression = Compression::unknown;
  else if (header.flags & flag_zstd)
    code.compression = Compression::zstd;
  else if (header.flags & flag_lz4)
    code.compression = Compression::lz4;
  const bool compressed = code.compression == Compression::zstd || code.compression == Compression::lz4;
  code.stored_size = compressed ? header.compressed_size : header.payload_size;
  code.uncompressed_size = compressed ? header.uncompressed_size : header.payload_size;
  code.payload_offset = payload_file_offset;
  return code;
}

struct ContainerResult {
  bool is_container = false;  // false: not a container (data sections only)
  std::uint64_t size = 0;     // header + entries
  std::optional<ParseProblem> problem;
};

ContainerResult parse_container(const ByteSpan& span, std::uint64_t at, ScanMode mode, const std::string& location,
                                const ParseLimits& limits, ContainerSink& sink) {
  const bool strict = mode == ScanMode::fatbin_section;
  auto fail = [&](std::string what) {
    ContainerResult result;
    if (!strict) return result;
    result.problem = ParseProblem{ReadErrorKind::malformed,
                                  fmt::format("fatbin container at offset {:#x} in {}: {}", span.file_offset + at,
                                              location, what)};
    return result;
  };
  if (!span.contains(at, container_header_size)) return fail("its header is cut off (truncated file?)");
  const auto version = span.read<std::uint16_t>(at + 4);
  const auto header_size = span.read<std::uint16_t>(at + 6);
  const auto entries_size = span.read<std::uint64_t>(at + 8);
  if (version != 1) return fail(fmt::format("unknown container version {}", version));
  if (header_size < container_header_size || header_size > 256)
    return fail(fmt::format("a container header claims {} bytes", header_size));
  if (!span.contains(at + header_size, entries_size))
    return fail(fmt::format("the container claims {} bytes but only {} are left in the section (truncated file?)",
                            entries_size, span.size - std::min(span.size, at + header_size)));
  const auto end = at + header_size + entries_size;
  const auto first_new_entry = sink.entries->size();
  auto entry_at = at + header_size;
  while (entry_at < end) {
    const auto room = end - entry_at;
    // Containers are padded to an alignment; a zero tail is padding.
    if (room < entry_header_min_size || span.read<std::uint16_t>(entry_at) == 0) {
      if (all_zero(span, entry_at, end)) break;
      if (room < entry_header_min_size) {
        sink.entries->resize(first_new_entry);
        return fail(fmt::format("{} stray bytes at its end", room));
      }
    }
    const auto header = read_entry_header(span, entry_at);
    if (auto problem = entry_header_problem(header, room); !problem.empty()) {
      sink.entries->resize(first_new_entry);
      // A chance magic in data is rejected at its first entry; a container
      // that breaks later is real and broken.
      if (!strict && entry_at == at + header_size) return {};
      ContainerResult result;
      result.problem = ParseProblem{ReadErrorKind::malformed,
                                    fmt::format("fatbin container at offset {:#x} in {}: entry at offset {:#x}: {}",
                                                span.file_offset + at, location, span.file_offset + entry_at, problem)};
      return result;
    }
    if (sink.entries->size() >= limits.max_entries) {
      ContainerResult result;
      result.problem = ParseProblem{
          ReadErrorKind::too_large,
          fmt::format("more than {} device code entries; gpuenv stops there", limits.max_entries)};
      return result;
    }
    auto code = describe_entry(header, span.file_offset + entry_at + header.header_size);
    code.container_offset = span.file_offset + at;
    code.container_size = header_size + entries_size;
    code.location = location;
    code.registered = sink.registered_section && mode == ScanMode::fatbin_section;
    // Only small uncompressed cubins are looked into: an empty module is a
    // couple of KB, and reading the big ones would cost (cuBLAS: 100s of MB).
    constexpr std::uint64_t kLookedInto = 64 * 1024;
    if (code.kind == CodeKind::sass && code.compression == Compression::none && header.payload_size <= kLookedInto)
      code.empty_module = cubin_defines_nothing(span.sub(entry_at + header.header_size, header.payload_size));
    sink.entries->push_back(std::move(code));
    entry_at += header.header_size + header.payload_size;
  }
  if (sink.entries->size() == first_new_entry && !strict) return {};
  return {true, header_size + entries_size, std::nullopt};
}

// The next offset at or after `from` holding the magic. Any alignment: an
// archive member's data, and so its sections, can start at any even offset.
std::uint64_t find_magic(const ByteSpan& span, std::uint64_t from) {
  constexpr unsigned char first = fatbin_magic & 0xff;
  auto at = from;
  while (at + 4 <= span.size) {
    const void* hit = std::memchr(span.data + at, first, span.size - at - 3);
    if (!hit) break;
    at = static_cast<std::uint64_t>(static_cast<const unsigned char*>(hit) - span.data);
    if (span.read<std::uint32_t>(at) == fatbin_magic) return at;
    ++at;
  }
  return span.size;
}

}  // namespace

std::optional<ParseProblem> collect_fatbin_containers(ByteSpan span, ScanMode mode, const std::string& location,
                                                      const ParseLimits& limits, ContainerSink& sink) {
  std::uint64_t at = 0;
  while (at < span.size) {
    at = find_magic(span, at);
    if (at >= span.size) break;
    auto result = parse_container(span, at, mode, location, limits, sink);
    if (result.problem) return result.problem;
    if (!result.is_container) {
      ++at;
      continue;
    }
    ++sink.containers;
    at += result.size;
  }
  return std::nullopt;
}

}  // namespace gpuenv::cuda_binary::detail
