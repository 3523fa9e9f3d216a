#include "gpuenv/cuda_binary/ptx_text.hpp"

#include <algorithm>
#include <charconv>

namespace gpuenv::cuda_binary::detail {
namespace {

constexpr std::uint64_t ptx_header_window = 64 * 1024;

// The word after `directive` at the start of a line, e.g. "9.0" after ".version".
std::optional<std::string_view> directive_argument(std::string_view text, std::string_view directive) {
  std::size_t at = 0;
  while ((at = text.find(directive, at)) != std::string_view::npos) {
    const bool line_start = at == 0 || text[at - 1] == '\n' || text[at - 1] == ' ' || text[at - 1] == '\t';
    auto rest = text.substr(at + directive.size());
    if (line_start && !rest.empty() && (rest[0] == ' ' || rest[0] == '\t')) {
      auto begin = rest.find_first_not_of(" \t");
      if (begin == std::string_view::npos) return std::nullopt;
      rest = rest.substr(begin);
      return rest.substr(0, rest.find_first_of(" \t\r\n,"));
    }
    at += directive.size();
  }
  return std::nullopt;
}

bool looks_like_text(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte == 0 || (byte < 0x20 && c != '\n' && c != '\r' && c != '\t');
  });
}

}  // namespace

std::optional<PtxIsaVersion> ptx_version_directive(std::string_view text) {
  auto argument = directive_argument(text, ".version");
  if (!argument) return std::nullopt;
  const auto dot = argument->find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  PtxIsaVersion version;
  auto major = argument->substr(0, dot);
  auto minor = argument->substr(dot + 1);
  auto [major_end, major_error] = std::from_chars(major.data(), major.data() + major.size(), version.major);
  auto [minor_end, minor_error] = std::from_chars(minor.data(), minor.data() + minor.size(), version.minor);
  if (major_error != std::errc{} || minor_error != std::errc{} || major_end != major.data() + major.size() ||
      minor_end != minor.data() + minor.size())
    return std::nullopt;
  return version;
}

std::optional<GpuArchitecture> ptx_target_directive(std::string_view text) {
  auto argument = directive_argument(text, ".target");
  if (!argument || !argument->starts_with("sm_")) return std::nullopt;
  return parse_gpu_architecture(*argument);
}

std::optional<DeviceCode> read_ptx_text(const ByteSpan& span) {
  auto text = span.text(0, std::min(span.size, ptx_header_window));
  // Trailing NUL padding is common when PTX was cut out of a fatbin.
  auto content = text.substr(0, text.find('\0'));
  if (!looks_like_text(content)) return std::nullopt;
  auto version = ptx_version_directive(content);
  auto target = ptx_target_directive(content);
  if (!version || !target) return std::nullopt;
  DeviceCode code;
  code.kind = CodeKind::ptx;
  code.arch = *target;
  code.ptx_isa = version;
  code.stored_size = code.uncompressed_size = span.size;
  code.location = "ptx";
  return code;
}

}  // namespace gpuenv::cuda_binary::detail
