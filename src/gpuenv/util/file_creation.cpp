#include "gpuenv/util/file_creation.hpp"

#include <sys/stat.h>
#include <sys/xattr.h>

#include <cerrno>
#include <charconv>

#include "gpuenv/util/file_io.hpp"

namespace gpuenv::util {

namespace {

mode_t read_process_umask() {
  if (const auto status = read_file("/proc/self/status", 64 << 10)) {
    const std::string_view text = *status;
    constexpr std::string_view key = "\nUmask:";
    if (const auto at = text.find(key); at != std::string_view::npos) {
      auto digits = text.substr(at + key.size());
      while (!digits.empty() && (digits.front() == ' ' || digits.front() == '\t')) {
        digits.remove_prefix(1);
      }
      unsigned value = 0;
      const auto [end, error] =
          std::from_chars(digits.data(), digits.data() + digits.size(), value, 8);
      if (error == std::errc() && end != digits.data()) return static_cast<mode_t>(value & 0777);
    }
  }
  // Kernels before 4.7 lack the line: read it the racy way, once.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

mode_t process_umask() {
  // Not cached: a few microseconds per package, and a umask changed since
  // (a test, an embedding program) is still seen.
  return read_process_umask();
}

CreationModes::CreationModes(int directory_fd) : umask_(process_umask()) {
  // A default ACL makes open() apply its entries instead of the umask.
  // ENODATA: none; ENOTSUP: the filesystem has no ACLs at all.
  const ssize_t size = ::fgetxattr(directory_fd, "system.posix_acl_default", nullptr, 0);
  default_acl_ = size > 0 || (size < 0 && errno != ENODATA && errno != ENOTSUP);
}

bool modification_time_matters(std::string_view path) {
  return path.ends_with(".py");
}

}  // namespace gpuenv::util
