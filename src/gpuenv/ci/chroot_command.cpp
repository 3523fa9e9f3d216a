#include "gpuenv/ci/chroot_command.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace gpuenv::ci {
namespace {

namespace fs = std::filesystem;

// Arguments: ROOT ro|rw WORKDIR, then SOURCE TARGET ro|rw triples, then
// `--`, then NAME=value... and the command. The mounts are made in the new
// mount namespace only (unshare makes its propagation private), so they
// vanish with it, even when the command is killed.
constexpr const char* kChrootScript = R"sh(set -eu
root=$1 root_mode=$2 workdir=$3
shift 3
mount --bind "$root" "$root"
while [ "$1" != -- ]; do
  source=$1 target=$root$2 mode=$3
  shift 3
  if [ -d "$source" ]; then
    mkdir -p "$target"
  else
    mkdir -p "$(dirname "$target")"
    [ -e "$target" ] || : > "$target"
  fi
  mount --bind "$source" "$target"
  if [ "$mode" = ro ]; then mount -o remount,bind,ro "$target"; fi
done
shift
mount -t proc proc "$root/proc"
mkdir -p "$root/sys"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
for node in null zero full random urandom; do
  [ -e "$root/dev/$node" ] || : > "$root/dev/$node"
  mount --bind "/dev/$node" "$root/dev/$node"
done
mkdir -p "$root/dev/shm"
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
if [ "$root_mode" = ro ]; then mount -o remount,bind,ro "$root"; fi
exec chroot "$root" /usr/bin/env -i -C "$workdir" "$@"
)sh";

constexpr const char* kStdoutScript = R"(out=$1
shift
exec "$@" > "$out")";

bool is_absolute_inside(std::string_view path) {
  if (path.empty() || path.front() != '/') return false;
  for (const auto& part : fs::path(std::string(path))) {
    if (part == "..") return false;
  }
  return true;
}

bool is_assignment(std::string_view entry) {
  const auto equals = entry.find('=');
  if (equals == 0 || equals == std::string_view::npos) return false;
  const auto name = entry.substr(0, equals);
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }) &&
         !(name.front() >= '0' && name.front() <= '9');
}

CiError refused(std::string message) {
  return CiError{CiError::Kind::invalid, "chroot runner", std::move(message)};
}

}  // namespace

std::expected<std::vector<std::string>, CiError> chroot_command(const ChrootInvocation& invocation) {
  if (!invocation.root.is_absolute()) {
    return std::unexpected(refused(fmt::format("the root filesystem {} is not an absolute path",
                                               invocation.root.string())));
  }
  if (!is_absolute_inside(invocation.working_directory)) {
    return std::unexpected(refused(fmt::format("the working directory '{}' is not an absolute path inside the root",
                                               invocation.working_directory)));
  }
  std::vector<std::string> command{"unshare", "--mount", "--pid", "--fork", "--propagation", "private", "--",
                                   "/bin/sh", "-c",      kChrootScript,    "gpuenv-chroot",
                                   invocation.root.string(), invocation.read_only_root ? "ro" : "rw",
                                   invocation.working_directory};
  for (const auto& mount : invocation.mounts) {
    if (!is_absolute_inside(mount.target) || mount.target == "/" || mount.target == "--") {
      return std::unexpected(
          refused(fmt::format("the mount target '{}' is not an absolute path below the root", mount.target)));
    }
    if (!mount.source.is_absolute()) {
      return std::unexpected(refused(fmt::format("the mount source {} is not an absolute path", mount.source.string())));
    }
    command.push_back(mount.source.string());
    command.push_back(mount.target);
    command.push_back(mount.read_only ? "ro" : "rw");
  }
  command.push_back("--");
  for (const auto& entry : invocation.environment) {
    if (!is_assignment(entry)) {
      return std::unexpected(refused(fmt::format("'{}' is not an environment entry NAME=value", entry)));
    }
    command.push_back(entry);
  }
  if (invocation.argv.empty() || invocation.argv.front().empty() ||
      invocation.argv.front().find('=') != std::string::npos || invocation.argv.front().front() == '-') {
    return std::unexpected(
        refused("the command inside the root is empty, or its program name holds '=' or starts with '-'"));
  }
  command.insert(command.end(), invocation.argv.begin(), invocation.argv.end());
  return command;
}

std::vector<std::string> with_stdout_to(const std::string& stdout_file, const std::vector<std::string>& argv) {
  std::vector<std::string> command{"/bin/sh", "-c", kStdoutScript, "gpuenv-stdout", stdout_file};
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

}  // namespace gpuenv::ci
