#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpuenv::specs {

// A conda platform subdirectory ("linux-64", "osx-arm64", "noarch", ...).
class Platform {
 public:
  enum class Kind {
    noarch, linux_32, linux_64, linux_aarch64, linux_armv6l, linux_armv7l, linux_ppc64,
    linux_ppc64le, linux_riscv64, linux_s390x, osx_64, osx_arm64, win_32, win_64, win_arm64,
    freebsd_64, emscripten_wasm32, wasi_wasm32, zos_z,
  };

  constexpr explicit Platform(Kind kind) : kind_(kind) {}

  // The known subdir with this exact name, or nullopt ("linux-64" -> linux_64).
  static std::optional<Platform> parse(std::string_view subdir);
  // The platform this gpuenv binary was built for.
  static Platform current();

  Kind kind() const { return kind_; }
  std::string_view str() const;
  // "linux", "osx", "win", ... ; empty for noarch.
  std::string_view os() const;
  bool is_linux() const { return os() == "linux"; }
  bool is_unix() const;

  friend bool operator==(Platform, Platform) = default;

 private:
  Kind kind_;
};

// Every subdir name conda knows, in a stable order.
std::span<const std::string_view> known_subdirs();

}  // namespace gpuenv::specs
