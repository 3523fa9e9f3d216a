#include "gpuenv/specs/platform.hpp"

#include <array>

namespace gpuenv::specs {
namespace {

// Indexed by Platform::Kind.
constexpr std::array<std::string_view, 19> subdir_names = {
    "noarch",      "linux-32",      "linux-64",          "linux-aarch64", "linux-armv6l",
    "linux-armv7l", "linux-ppc64",  "linux-ppc64le",     "linux-riscv64", "linux-s390x",
    "osx-64",      "osx-arm64",     "win-32",            "win-64",        "win-arm64",
    "freebsd-64",  "emscripten-wasm32", "wasi-wasm32",   "zos-z",
};

}  // namespace

std::optional<Platform> Platform::parse(std::string_view subdir) {
  for (std::size_t i = 0; i < subdir_names.size(); ++i) {
    if (subdir_names[i] == subdir) return Platform(static_cast<Kind>(i));
  }
  return std::nullopt;
}

Platform Platform::current() {
#if defined(__linux__) && defined(__x86_64__)
  return Platform(Kind::linux_64);
#elif defined(__linux__) && defined(__aarch64__)
  return Platform(Kind::linux_aarch64);
#elif defined(__linux__) && defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return Platform(Kind::linux_ppc64le);
#elif defined(__linux__) && defined(__s390x__)
  return Platform(Kind::linux_s390x);
#elif defined(__linux__) && defined(__riscv) && __riscv_xlen == 64
  return Platform(Kind::linux_riscv64);
#elif defined(__APPLE__) && defined(__aarch64__)
  return Platform(Kind::osx_arm64);
#elif defined(__APPLE__) && defined(__x86_64__)
  return Platform(Kind::osx_64);
#elif defined(_WIN64)
  return Platform(Kind::win_64);
#else
#error "gpuenv does not know the conda subdir of this platform yet"
#endif
}

std::string_view Platform::str() const { return subdir_names[static_cast<std::size_t>(kind_)]; }

std::string_view Platform::os() const {
  const auto name = str();
  if (name == "noarch") return {};
  return name.substr(0, name.find('-'));
}

bool Platform::is_unix() const {
  const auto system = os();
  return system == "linux" || system == "osx" || system == "freebsd";
}

std::span<const std::string_view> known_subdirs() { return subdir_names; }

}  // namespace gpuenv::specs
