// Overlinking and overdepending, as conda-build and rattler-build report
// them, from plain inputs (no file is read here):
// - overlinking: an ELF file of the package needs a soname (DT_NEEDED) that
//   neither the package itself, nor a run requirement (through its files in
//   the host prefix), nor the system (glibc; libgcc_s/libstdc++ when the
//   machine's compilers built it; the NVIDIA driver's libcuda/libnvidia-*)
//   provides, and that dynamic_linking.missing_dso_allowlist does not allow.
//   Installed next to it, the file would fail to load, or load whatever the
//   user's machine happens to have.
// - overdepending: a run requirement that ships shared libraries none of the
//   package's ELF files links: a dependency users install for nothing.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace gpuenv::build {

struct LinkedElfFile {
  std::string path;                 // relative to the prefix
  std::string soname;               // DT_SONAME, may be empty
  std::vector<std::string> needed;  // DT_NEEDED
};

// A package installed in the host prefix and the paths it owns there
// (conda-meta/*.json "files").
struct HostPackageFiles {
  std::string name;
  std::vector<std::string> files;
};

struct LinkingCheckInput {
  std::vector<LinkedElfFile> elf_files;        // the package's ELF files that have a dynamic section
  std::vector<std::string> package_files;      // every path of the package, links included
  std::vector<HostPackageFiles> host_packages;
  std::set<std::string> run_requirements;      // package names, after run_exports
  std::vector<std::string> missing_dso_allowlist;  // globs
  bool machine_compilers = false;              // libgcc_s and libstdc++ then come from the system
};

struct Overlink {
  std::string file;
  std::string soname;
  std::string host_provider;  // a host package that has it but is no run requirement; empty: none has it
};

struct Overdepend {
  std::string package;
  std::vector<std::string> libraries;  // its shared libraries' file names, sorted
};

struct LinkingReport {
  std::vector<Overlink> overlinks;      // in file order, then DT_NEEDED order
  std::vector<Overdepend> overdepends;  // by package name
};

LinkingReport check_linking(const LinkingCheckInput& input);

// glibc's libraries, the dynamic loaders, the NVIDIA driver's libraries, and
// with the machine's compilers their runtime libraries: what every Linux
// system the package installs on already has.
bool is_system_library(const std::string& soname, bool machine_compilers);

// "libz.so", "libz.so.1.3": the file name of a shared library.
bool is_shared_library_name(const std::string& file_name);

}  // namespace gpuenv::build
