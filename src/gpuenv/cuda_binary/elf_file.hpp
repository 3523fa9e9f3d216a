// ELF files: host binaries whose sections hold fatbin containers, and
// cubins (ELF for EM_CUDA) that are device code themselves. Reads the ELF
// header and section headers; section contents only where device code is.
#pragma once

#include <optional>
#include <string>

#include "gpuenv/cuda_binary/fatbin_container.hpp"

namespace gpuenv::cuda_binary::detail {

inline constexpr unsigned char elf_magic[4] = {0x7f, 'E', 'L', 'F'};

bool starts_with_elf_magic(const ByteSpan& span);

// Adds the device code of the ELF file in `span` to `sink`. `member` names
// the archive member it came from ("" for a file of its own); locations read
// "member(.nv_fatbin)" then. Sets `format` to what the ELF file is.
// Whether the cubin in `span` defines nothing loadable: no .text.* (kernels,
// device functions) and no .nv.global/.nv.constant/.nv.shared (device
// variables). False for anything that is not a well-formed 64-bit cubin.
bool cubin_defines_nothing(const ByteSpan& span);

std::optional<ParseProblem> collect_elf_device_code(const ByteSpan& span, const std::string& member,
                                                    const ParseLimits& limits, ContainerSink& sink,
                                                    BinaryFormat& format);

}  // namespace gpuenv::cuda_binary::detail
