#include "gpuenv/prefix/beneath.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <vector>

namespace gpuenv::prefix {

namespace {

// As many as the kernel follows in one lookup (MAXSYMLINKS).
constexpr int kMaxSymlinks = 40;

int open_with_kernel(int root_fd, std::string_view relative) {
  const std::string path = relative.empty() ? std::string(".") : std::string(relative);
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0;; ++attempt) {
    const long fd = ::syscall(SYS_openat2, root_fd, path.c_str(), &how, sizeof(how));
    if (fd >= 0) return static_cast<int>(fd);
    // EAGAIN: a concurrent rename made the kernel unsure that '..' stayed
    // beneath; it asks the caller to try again.
    if (errno == EAGAIN && attempt < 8) continue;
    return -errno;
  }
}

void split_onto_front(std::string_view path, std::deque<std::string>& parts) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto end = std::min(path.find('/', start), path.size());
    if (end > start) pieces.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  parts.insert(parts.begin(), pieces.begin(), pieces.end());
}

// The same walk as RESOLVE_BENEATH, one component at a time: every
// component is opened with O_NOFOLLOW from the directory before it; a
// symbolic link's target is spliced into the components still to walk;
// '..' goes back to a directory already opened, never above the first.
int open_by_component(int root_fd, std::string_view relative) {
  std::vector<int> opened;  // opened[0] is the root's duplicate
  const auto close_all = [&opened] {
    for (const int fd : opened) ::close(fd);
  };
  const int root = ::fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
  if (root < 0) return -errno;
  opened.push_back(root);
  std::deque<std::string> parts;
  split_onto_front(relative, parts);
  int links = 0;
  while (!parts.empty()) {
    const std::string part = std::move(parts.front());
    parts.pop_front();
    if (part == ".") continue;
    if (part == "..") {
      if (opened.size() == 1) {
        close_all();
        return -EXDEV;
      }
      ::close(opened.back());
      opened.pop_back();
      continue;
    }
    const int fd = ::openat(opened.back(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      const int error = errno;
      close_all();
      return -error;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
      const int error = errno;
      ::close(fd);
      close_all();
      return -error;
    }
    if (S_ISLNK(info.st_mode)) {
      ::close(fd);
      char target[4096];
      const ssize_t length = ::readlinkat(opened.back(), part.c_str(), target, sizeof(target));
      if (length < 0 || ++links > kMaxSymlinks) {
        const int error = length < 0 ? errno : ELOOP;
        close_all();
        return -error;
      }
      const std::string_view link(target, static_cast<std::size_t>(length));
      if (link.empty() || link.front() == '/') {
        close_all();
        return link.empty() ? -ENOENT : -EXDEV;
      }
      split_onto_front(link, parts);
      continue;
    }
    if (!S_ISDIR(info.st_mode)) {
      ::close(fd);
      close_all();
      return -ENOTDIR;
    }
    opened.push_back(fd);
  }
  const int result = opened.back();
  opened.pop_back();
  close_all();
  return result;
}

}  // namespace

int open_directory_beneath(int root_fd, std::string_view relative, BeneathWalk walk) {
  // Learnt once per process: whether this kernel has openat2.
  static std::atomic<bool> kernel_lacks_openat2{false};
  if (walk == BeneathWalk::by_component) return open_by_component(root_fd, relative);
  if (walk == BeneathWalk::kernel) return open_with_kernel(root_fd, relative);
  if (!kernel_lacks_openat2.load(std::memory_order_relaxed)) {
    const int fd = open_with_kernel(root_fd, relative);
    if (fd != -ENOSYS && fd != -EPERM) return fd;
    // ENOSYS: an old kernel. EPERM: a seccomp filter (older container
    // runtimes) refusing a system call it does not know.
    if (fd == -ENOSYS) kernel_lacks_openat2.store(true, std::memory_order_relaxed);
  }
  return open_by_component(root_fd, relative);
}

std::vector<std::string> list_directory_beneath(int root_fd, std::string_view relative,
                                                BeneathWalk walk) {
  std::vector<std::string> names;
  const int path_fd = open_directory_beneath(root_fd, relative, walk);
  if (path_fd < 0) return names;
  // O_PATH descriptors cannot be read: reopen the directory itself.
  const int fd = ::openat(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ::close(path_fd);
  if (fd < 0) return names;
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    ::close(fd);
    return names;
  }
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

PrefixDirectories::~PrefixDirectories() { forget(); }

void PrefixDirectories::forget() {
  if (cached_fd_ >= 0 && cached_fd_ != prefix_fd_) ::close(cached_fd_);
  cached_fd_ = -1;
  cached_error_ = 0;
  cached_ = false;
  cached_dir_.clear();
}

PrefixDirectories::Parent PrefixDirectories::parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string_view dir = slash == std::string::npos ? std::string_view()
                                                           : std::string_view(path).substr(0, slash);
  Parent parent;
  parent.name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (!cached_ || dir != cached_dir_) {
    forget();
    if (dir.empty()) {
      cached_fd_ = prefix_fd_;
    } else {
      const int fd = open_directory_beneath(prefix_fd_, dir, walk_);
      if (fd < 0) {
        cached_error_ = -fd;
      } else {
        cached_fd_ = fd;
      }
    }
    cached_dir_ = dir;
    cached_ = true;
  }
  parent.fd = cached_fd_;
  parent.error = cached_error_;
  return parent;
}

std::string describe_unreachable(const std::string& prefix, const std::string& path, int error) {
  if (error == EXDEV) {
    return prefix + "/" + path + " lies beyond a symbolic link that leads outside the prefix "
           "(or is absolute); gpuenv never creates, replaces or removes a file through such a "
           "link. The package, or one installed before it, ships that link: report it to the "
           "channel that serves them, and remove the link (or the package that owns it) to go on";
  }
  if (error == ELOOP) {
    return prefix + "/" + path + " lies beyond too many symbolic links (a loop?); remove the "
           "looping link, or the package that owns it";
  }
  return "cannot reach the directory of " + prefix + "/" + path + ": " + std::strerror(error);
}

}  // namespace gpuenv::prefix
