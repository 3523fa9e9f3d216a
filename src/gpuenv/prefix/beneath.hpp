// Internal to the prefix module: reaching a path inside a prefix without
// ever leaving it.
//
// A package names paths relative to the prefix, and each package's archive
// is checked on its own, but symbolic links that several packages ship can
// combine: A ships `L/a/b/up -> ../..` (inside), B ships
// `L/esc -> a/b/up/../../x` (inside, read in B alone), and in the prefix
// L/esc leads out of it. Every path the linker, the unlinker and a rollback
// create, replace or remove is therefore reached through its parent
// directory, opened beneath the prefix: symbolic links that stay inside are
// followed (packages put files under `lib64 -> lib`, as conda lets them),
// one that leads out, an absolute one, or `..` above the prefix stops the
// walk. The last component is then used with *at() calls that never
// follow it.
//
// The kernel does the walk where it can (openat2 with RESOLVE_BENEATH,
// Linux 5.6); elsewhere, or where a seccomp filter refuses openat2, a walk
// one component at a time with O_NOFOLLOW does the same.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::prefix {

enum class BeneathWalk {
  automatic,  // openat2 where the kernel has it, else one component at a time
  kernel,     // openat2 only (fails with ENOSYS where missing)
  by_component,
};

// Opens the directory `relative` names beneath `root_fd` (O_PATH, so it
// serves as the dirfd of *at() calls). "" is the root itself. Returns the
// new descriptor, or -errno: EXDEV when the way leads out of the root,
// ENOENT / ENOTDIR / ELOOP as the kernel says them.
int open_directory_beneath(int root_fd, std::string_view relative,
                           BeneathWalk walk = BeneathWalk::automatic);

// The names in the directory `relative` beneath `root_fd`, sorted; none
// when it cannot be reached or read.
std::vector<std::string> list_directory_beneath(int root_fd, std::string_view relative,
                                                BeneathWalk walk = BeneathWalk::automatic);

// The directory holding one path of the prefix, and that path's last
// component. Keeps the last directory it opened: packages list their paths
// sorted, so neighbours share it.
class PrefixDirectories {
 public:
  struct Parent {
    int fd = -1;       // -1 when the parent cannot be reached; see `error`
    int error = 0;     // errno: EXDEV when the way leads out of the prefix
    std::string name;  // the last component
  };

  // `prefix_fd` stays the caller's.
  explicit PrefixDirectories(int prefix_fd, BeneathWalk walk = BeneathWalk::automatic)
      : prefix_fd_(prefix_fd), walk_(walk) {}
  ~PrefixDirectories();
  PrefixDirectories(const PrefixDirectories&) = delete;
  PrefixDirectories& operator=(const PrefixDirectories&) = delete;

  // The returned descriptor belongs to this object and stays valid until
  // the next call.
  Parent parent_of(const std::string& path);

  // Forgets the kept directory (after a directory was created or removed).
  void forget();

  int prefix_fd() const noexcept { return prefix_fd_; }

 private:
  int prefix_fd_;
  BeneathWalk walk_;
  std::string cached_dir_;
  int cached_fd_ = -1;
  int cached_error_ = 0;
  bool cached_ = false;
};

// A message for a path whose parent could not be reached: "... lies beyond
// a symbolic link that leads outside the prefix ..." for EXDEV.
std::string describe_unreachable(const std::string& prefix, const std::string& path, int error);

}  // namespace gpuenv::prefix
