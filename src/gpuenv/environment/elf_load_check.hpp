// `gpuenv doctor`'s check that every ELF file of an environment can load on
// this machine (issue 34), beside its GPU code: the GLIBC_ versions it needs
// against the machine's glibc (__glibc, so CONDA_OVERRIDE_GLIBC applies),
// the versions it needs of other libraries (GLIBCXX_/CXXABI_ of
// libstdc++.so.6, GCC_ of libgcc_s.so.1, ...) against the library the loader
// will really find -- the environment's own, else the system's -- and DT_NEEDED
// libraries found nowhere. Each FAIL names the file, what is missing and
// what to do.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/util/environment.hpp"

namespace gpuenv::environment {

struct ElfLoadMachine {
  std::optional<std::vector<int>> glibc;                  // {2, 36}; nullopt: unknown (not judged)
  std::vector<std::filesystem::path> system_library_dirs;  // where the loader looks after RPATH/RUNPATH
};

// __glibc of this machine (CONDA_OVERRIDE_GLIBC applies) and the loader's
// directories: /etc/ld.so.conf with its includes, then the default ones.
ElfLoadMachine elf_load_machine(const util::EnvLookup& env);

// The directories /etc/ld.so.conf-style `file` names, `include` globs
// followed (at most 8 levels, 4096 entries): what ld.so.cache is made from.
std::vector<std::filesystem::path> ld_so_conf_directories(const std::filesystem::path& file);

struct ElfLoadProblem {
  std::string file;         // relative to the prefix
  std::string package;      // "name-version-build"; empty when no record owns it
  std::string missing;      // "GLIBC_2.38 (libc.so.6)", "libfoo.so.1"
  std::string explanation;  // why it cannot load here
  std::string fix;
};

struct ElfLoadCheck {
  std::size_t elf_files = 0;              // dynamic ELF files of this machine's kind read
  std::string glibc;                      // "2.36", the version judged against; empty: unknown
  std::vector<ElfLoadProblem> problems;   // FAIL lines, sorted by file
  std::vector<std::string> unreadable;    // files whose tables could not be read (warnings)
  bool everything_can_load() const { return problems.empty(); }
};

ElfLoadCheck check_elf_loading(const std::filesystem::path& prefix, const ElfLoadMachine& machine);

}  // namespace gpuenv::environment
