#include "gpuenv/system/host_facts.hpp"

#include <sys/utsname.h>

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include <cctype>

#include "gpuenv/system/archspec.hpp"

namespace gpuenv::system {
namespace {

// Length of a run of digits at the start of `text`.
std::size_t digit_run(std::string_view text) {
  std::size_t length = 0;
  while (length < text.size() && std::isdigit(static_cast<unsigned char>(text[length]))) ++length;
  return length;
}

}  // namespace

std::optional<std::string> linux_version_from_release(std::string_view release) {
  // The regex conda and CEP 30 use: \d+\.\d+(\.\d+)?(\.\d+)?
  std::size_t end = digit_run(release);
  if (end == 0) return std::nullopt;
  int components = 1;
  while (components < 4 && end < release.size() && release[end] == '.') {
    const auto next = digit_run(release.substr(end + 1));
    if (next == 0) break;
    end += 1 + next;
    ++components;
  }
  if (components < 2) return std::nullopt;
  return std::string(release.substr(0, end));
}

std::optional<std::string> major_minor(std::string_view version) {
  const auto major = digit_run(version);
  if (major == 0 || major >= version.size() || version[major] != '.') return std::nullopt;
  const auto minor = digit_run(version.substr(major + 1));
  if (minor == 0) return std::nullopt;
  return std::string(version.substr(0, major + 1 + minor));
}

HostFacts detect_host_facts() {
  HostFacts facts;
#if defined(__GLIBC__)
  facts.glibc_version = std::string(gnu_get_libc_version());
#endif
  utsname names{};
  if (::uname(&names) == 0) {
    facts.kernel_release = names.release;
    facts.machine = names.machine;
  }
  facts.microarchitecture = detect_microarchitecture(facts.machine);
  return facts;
}

}  // namespace gpuenv::system
