#include "gpuenv/builder/glibc_requirement.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <string_view>

#include "gpuenv/cuda_binary/symbol_versions.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;
namespace cb = gpuenv::cuda_binary;

namespace {

bool starts_with_elf_magic(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  std::array<char, 4> magic{};
  const auto got = ::read(fd, magic.data(), magic.size());
  ::close(fd);
  return got == 4 && std::string_view(magic.data(), 4) == "\x7f" "ELF";
}

}  // namespace

std::optional<GlibcNeed> highest_glibc_need(const fs::path& prefix, const std::vector<std::string>& files,
                                            const std::function<void(const std::string&)>& warn) {
  std::optional<GlibcNeed> highest;
  for (const auto& file : files) {
    const auto path = prefix / file;
    std::error_code error;
    if (!fs::is_regular_file(fs::symlink_status(path, error)) || !starts_with_elf_magic(path)) continue;
    const auto versions = cb::read_symbol_versions(path.string());
    if (!versions) {
      if (warn) warn("glibc: cannot read the symbol versions of " + file + ": " + versions.error().message);
      continue;
    }
    for (const auto& need : versions->needs) {
      const auto found = cb::highest_version(need.versions, "GLIBC_");
      if (found && (!highest || cb::version_less(highest->numbers, found->numbers))) {
        highest = GlibcNeed{file, need.library, found->tag, found->numbers};
      }
    }
  }
  return highest;
}

std::optional<std::vector<int>> glibc_lower_bound(const std::vector<std::string>& specs) {
  std::optional<std::vector<int>> highest;
  for (const auto& spec : specs) {
    const std::string_view text(spec);
    if (!text.starts_with("__glibc") || text.size() == 7 || text[7] != ' ') continue;
    // "__glibc >=2.17,<3.0.a0": every ">=" part (an "|" alternative is no floor).
    if (text.find('|') != std::string_view::npos) continue;
    std::string_view constraints = text.substr(8);
    while (!constraints.empty()) {
      const auto comma = constraints.find(',');
      auto part = constraints.substr(0, comma);
      while (part.starts_with(' ')) part.remove_prefix(1);
      while (part.ends_with(' ')) part.remove_suffix(1);
      if (part.starts_with(">=")) {
        if (auto numbers = cb::version_numbers(part.substr(2), "")) {
          if (!highest || cb::version_less(*highest, *numbers)) highest = std::move(*numbers);
        }
      }
      if (comma == std::string_view::npos) break;
      constraints.remove_prefix(comma + 1);
    }
  }
  return highest;
}

std::expected<std::optional<std::string>, BuildError> glibc_requirement(const std::optional<GlibcNeed>& need,
                                                                        const std::optional<GlibcFloor>& declared,
                                                                        const std::vector<std::string>& run) {
  if (!need) return std::nullopt;
  const auto needed = cb::dotted(need->numbers);
  if (declared && cb::version_less(declared->numbers, need->numbers)) {
    return std::unexpected(BuildError{
        BuildErrorKind::linking,
        need->file + " needs " + need->tag + " (from " + need->library + "), but the recipe declares glibc " +
            cb::dotted(declared->numbers) + " as the oldest it supports (" + declared->declared_by +
            "): the package would install on machines where it cannot load. Build it against glibc " +
            cb::dotted(declared->numbers) + " (conda-forge's sysroot_linux-64 " + cb::dotted(declared->numbers) +
            " in the build requirements, or a CI image with that glibc), or raise the floor to " + needed +
            " (c_stdlib_version " + needed + ")"});
  }
  const auto existing = glibc_lower_bound(run);
  if (existing && !cb::version_less(*existing, need->numbers)) return std::nullopt;
  return "__glibc >=" + needed + ",<3.0.a0";
}

}  // namespace gpuenv::build
