#include "gpuenv/cuda_binary/binary_bytes.hpp"

#include "gpuenv/cuda_binary/elf_file.hpp"
#include "gpuenv/cuda_binary/fatbin_container.hpp"
#include "gpuenv/cuda_binary/ptx_text.hpp"
#include "gpuenv/cuda_binary/static_archive.hpp"

namespace gpuenv::cuda_binary::detail {

bool starts_with_fatbin_magic(const ByteSpan& span) {
  return span.size >= 4 && span.read<std::uint32_t>(0) == fatbin_magic;
}

std::optional<ParseProblem> list_device_code(const ByteSpan& bytes, const ParseLimits& limits, BinaryListing& listing) {
  ContainerSink sink{true, &listing.entries};
  std::optional<ParseProblem> problem;
  if (starts_with_elf_magic(bytes)) {
    problem = collect_elf_device_code(bytes, "", limits, sink, listing.format);
  } else if (starts_with_archive_magic(bytes)) {
    listing.format = BinaryFormat::static_archive;
    problem = collect_archive_device_code(bytes, limits, sink);
  } else if (starts_with_thin_archive_magic(bytes)) {
    problem = ParseProblem{ReadErrorKind::unsupported,
                           "a thin archive (it names its members' files instead of holding them); inspect the member "
                           "files themselves"};
  } else if (starts_with_fatbin_magic(bytes)) {
    listing.format = BinaryFormat::fatbin;
    problem = collect_fatbin_containers(bytes, ScanMode::fatbin_section, "fatbin", limits, sink);
  } else if (auto ptx = read_ptx_text(bytes)) {
    listing.format = BinaryFormat::ptx;
    listing.entries.push_back(*ptx);
  } else {
    problem = ParseProblem{ReadErrorKind::not_a_binary,
                           "not a CUDA binary gpuenv reads (ELF file, static archive, .fatbin, .cubin or .ptx)"};
  }
  listing.container_count = sink.containers;
  return problem;
}

}  // namespace gpuenv::cuda_binary::detail
