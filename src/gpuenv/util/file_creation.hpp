// Creating files with the fewest system calls that still give them exactly
// the mode and modification time they must have (the install path creates
// tens of thousands of files; every call per file costs on a slow filesystem).
#pragma once

#include <sys/types.h>

#include <string_view>

namespace gpuenv::util {

// Whether files created in one directory get the mode given to open()
// without a later fchmod: true when the process's umask clears none of the
// mode's bits and the directory has no default ACL (which replaces the umask).
class CreationModes {
 public:
  // `directory_fd`: the directory files are created in (its subdirectories,
  // created by the same code, inherit its default ACL or its lack of one).
  explicit CreationModes(int directory_fd);
  // True when openat(directory, name, O_CREAT, mode) gives the file `mode`
  // (set-id and sticky bits are left to fchmod, which reports what it drops).
  bool open_gives(mode_t mode) const {
    return !default_acl_ && (mode & ~mode_t{0777}) == 0 && (mode & umask_) == 0;
  }

 private:
  mode_t umask_ = 0;
  bool default_acl_ = false;
};

// The process's umask, read without changing it (from /proc/self/status;
// umask(2) can only read it by setting it, which races with other threads
// creating files).
mode_t process_umask();

// Whether an installed file's modification time is read by anything: a .py
// file's is compared with the one its shipped __pycache__/*.pyc recorded
// (a mismatch makes Python recompile it on every import where the prefix is
// read-only). Other files keep the time they were extracted at, as
// docs/spec-deviations.md says.
bool modification_time_matters(std::string_view path);

}  // namespace gpuenv::util
