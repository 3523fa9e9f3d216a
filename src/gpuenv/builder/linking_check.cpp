#include "gpuenv/builder/linking_check.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <map>

namespace gpuenv::build {

namespace {

std::string file_name_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool glob_matches(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

// Patterns are written for paths ("**/libcuda.so*", "lib/libfoo.so.1") or
// for sonames ("libcuda.so*"). A soname that nothing provides has no path,
// so a path pattern is matched by its last component too.
bool allowlisted(const std::string& soname, const std::vector<std::string>& provider_paths,
                 const std::vector<std::string>& allowlist) {
  for (const auto& pattern : allowlist) {
    if (glob_matches(pattern, soname) || glob_matches(file_name_of(pattern), soname)) return true;
    for (const auto& path : provider_paths) {
      if (glob_matches(pattern, path)) return true;
    }
  }
  return false;
}

struct Provider {
  std::string package;
  std::string path;
};

}  // namespace

bool is_shared_library_name(const std::string& file_name) {
  const auto at = file_name.find(".so");
  if (at == std::string::npos || at == 0) return false;
  const auto rest = file_name.substr(at + 3);
  return rest.empty() || rest.front() == '.';
}

bool is_system_library(const std::string& soname, bool machine_compilers) {
  static const char* const glibc[] = {
      "libc.so.6",      "libm.so.6",     "libpthread.so.0", "libdl.so.2",  "librt.so.1",
      "libutil.so.1",   "libresolv.so.2", "libmvec.so.1",   "libanl.so.1", "ld-linux-x86-64.so.2",
      "ld-linux-aarch64.so.1", "ld64.so.2", "ld-linux.so.2",
  };
  if (std::find(std::begin(glibc), std::end(glibc), soname) != std::end(glibc)) return true;
  // The driver: installed with the GPU, never by a package.
  if (soname == "libcuda.so.1" || soname == "libcuda.so" || soname.starts_with("libnvidia-")) return true;
  return machine_compilers && (soname == "libgcc_s.so.1" || soname == "libstdc++.so.6");
}

LinkingReport check_linking(const LinkingCheckInput& input) {
  // soname -> the host packages' files of that name.
  std::map<std::string, std::vector<Provider>> providers;
  std::map<std::string, std::set<std::string>> libraries_of;
  for (const auto& package : input.host_packages) {
    for (const auto& path : package.files) {
      const auto name = file_name_of(path);
      if (!is_shared_library_name(name)) continue;
      providers[name].push_back({package.name, path});
      libraries_of[package.name].insert(name);
    }
  }
  std::set<std::string> own;
  for (const auto& path : input.package_files) own.insert(file_name_of(path));
  for (const auto& file : input.elf_files) {
    if (!file.soname.empty()) own.insert(file.soname);
  }

  LinkingReport report;
  std::set<std::string> linked_packages;
  for (const auto& file : input.elf_files) {
    for (const auto& soname : file.needed) {
      if (own.contains(soname)) continue;
      const auto found = providers.find(soname);
      std::vector<std::string> paths;
      std::string outside_run;
      bool satisfied = false;
      if (found != providers.end()) {
        for (const auto& provider : found->second) {
          paths.push_back(provider.path);
          if (input.run_requirements.contains(provider.package)) {
            linked_packages.insert(provider.package);
            satisfied = true;
          } else if (outside_run.empty()) {
            outside_run = provider.package;
          }
        }
      }
      if (satisfied || is_system_library(soname, input.machine_compilers) ||
          allowlisted(soname, paths, input.missing_dso_allowlist)) {
        continue;
      }
      report.overlinks.push_back({file.path, soname, outside_run});
    }
  }
  // Without a linked ELF file there is nothing to judge a dependency by (a
  // data or script package depends on libraries for its users' sake).
  if (input.elf_files.empty()) return report;
  for (const auto& name : input.run_requirements) {
    // A Python extension module is loaded into the interpreter and never
    // links libpython (conda-forge's python links none into them): the
    // python requirement is for the interpreter, not for its library.
    if (name == "python") continue;
    const auto libraries = libraries_of.find(name);
    if (libraries == libraries_of.end() || linked_packages.contains(name)) continue;
    report.overdepends.push_back({name, {libraries->second.begin(), libraries->second.end()}});
  }
  return report;
}

}  // namespace gpuenv::build
