#include "gpuenv/environment/elf_load_check.hpp"

#include <fcntl.h>
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "gpuenv/cuda_binary/dynamic_linking.hpp"
#include "gpuenv/cuda_binary/symbol_versions.hpp"
#include "gpuenv/environment/prefix_files.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/system/system_survey.hpp"

namespace gpuenv::environment {

namespace fs = std::filesystem;
namespace cb = gpuenv::cuda_binary;

namespace {

// The e_machine of the files this machine runs.
#if defined(__aarch64__)
constexpr std::uint16_t this_elf_machine = 183;  // EM_AARCH64
#else
constexpr std::uint16_t this_elf_machine = 62;  // EM_X86_64
#endif
constexpr std::size_t max_conf_entries = 4096;

// The ELF file's e_machine, or 0 when it is not a 64-bit ELF file.
std::uint16_t elf_machine(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::array<unsigned char, 20> header{};
  const auto got = ::read(fd, header.data(), header.size());
  ::close(fd);
  if (got != static_cast<ssize_t>(header.size()) || header[0] != 0x7f || header[1] != 'E' || header[2] != 'L' ||
      header[3] != 'F' || header[4] != 2) {
    return 0;
  }
  return static_cast<std::uint16_t>(header[18] | (header[19] << 8));
}

// Libraries the NVIDIA driver installs: judged by the CUDA checks, not here
// (a machine without the driver has none of them, which those checks say).
bool from_the_driver(const std::string& soname) {
  return soname.starts_with("libcuda.so") || soname.starts_with("libnvidia-") || soname.starts_with("libnvcuvid.so");
}

// glibc's own libraries: their GLIBC_ versions are the machine's glibc's.
bool is_glibc_library(const std::string& soname) {
  static const std::set<std::string> names = {"libc.so.6",       "libm.so.6",     "libpthread.so.0", "libdl.so.2",
                                              "librt.so.1",      "libutil.so.1",  "libresolv.so.2",  "libanl.so.1",
                                              "libmvec.so.1",    "libnsl.so.1",   "libcrypt.so.1",
                                              "ld-linux-x86-64.so.2"};
  return names.contains(soname);
}

std::vector<std::string> split_path_list(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find(':', start);
    auto part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!part.empty()) parts.push_back(std::move(part));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

std::string with_origin(std::string directory, const fs::path& origin) {
  for (const std::string token : {"${ORIGIN}", "$ORIGIN"}) {
    for (auto at = directory.find(token); at != std::string::npos; at = directory.find(token)) {
      directory.replace(at, token.size(), origin.string());
    }
  }
  return directory;
}

struct Resolved {
  fs::path path;       // empty: not found
  std::string where;   // "the environment's", "the system's", "its RUNPATH's"
};

class LoaderView {
 public:
  LoaderView(const fs::path& prefix, const ElfLoadMachine& machine) : prefix_(prefix), machine_(machine) {}

  // Where the loader finds `soname` for `file`: RPATH (when there is no
  // RUNPATH) or RUNPATH, then the environment's lib/ (every conda program's
  // RPATH names it, so a library without one finds its neighbours there when
  // loaded), then the system's directories.
  Resolved find(const std::string& soname, const fs::path& file, const cb::DynamicLinking& linking) const {
    std::error_code error;
    if (soname.find('/') != std::string::npos) {
      return fs::exists(soname, error) ? Resolved{soname, "the path it names"} : Resolved{};
    }
    const auto& own = linking.runpath.empty() ? linking.rpath : linking.runpath;
    for (const auto& directory : split_path_list(own)) {
      const fs::path candidate = fs::path(with_origin(directory, file.parent_path())) / soname;
      if (fs::exists(candidate, error)) {
        const bool inside = candidate.lexically_normal().string().starts_with(prefix_.lexically_normal().string());
        return {candidate, inside ? "the environment's" : "its RUNPATH's"};
      }
    }
    if (const auto candidate = prefix_ / "lib" / soname; fs::exists(candidate, error)) {
      return {candidate, "the environment's"};
    }
    for (const auto& directory : machine_.system_library_dirs) {
      if (const auto candidate = directory / soname; fs::exists(candidate, error)) return {candidate, "the system's"};
    }
    return {};
  }

  // The versions the library at `path` defines; empty for one without
  // version definitions (the loader then checks nothing) or unreadable.
  const std::vector<std::string>& definitions(const fs::path& path) {
    auto [found, added] = definitions_.try_emplace(fs::weakly_canonical(path).string());
    if (added) {
      if (auto versions = cb::read_symbol_versions(found->first)) found->second = std::move(versions->definitions);
    }
    return found->second;
  }

 private:
  fs::path prefix_;
  const ElfLoadMachine& machine_;
  std::map<std::string, std::vector<std::string>> definitions_;
};

std::string newest_with_prefix(const std::vector<std::string>& definitions, const std::string& tag) {
  const auto underscore = tag.rfind('_');
  if (underscore == std::string::npos) return "";
  const auto newest = cb::highest_version(definitions, tag.substr(0, underscore + 1));
  return newest ? newest->tag : "";
}

void check_file(const std::string& relative, const std::string& package, const fs::path& prefix,
                const ElfLoadMachine& machine, LoaderView& loader, ElfLoadCheck& check) {
  const auto path = prefix / relative;
  auto linking = cb::read_dynamic_linking(path.string());
  if (!linking) {
    check.unreadable.push_back(linking.error().message);
    return;
  }
  if (!linking->dynamic) return;  // a static executable or an object file: nothing to load
  auto versions = cb::read_symbol_versions(path.string());
  if (!versions) {
    check.unreadable.push_back(versions.error().message);
    return;
  }
  ++check.elf_files;
  const auto fail = [&](std::string missing, std::string explanation, std::string fix) {
    check.problems.push_back({relative, package, std::move(missing), std::move(explanation), std::move(fix)});
  };
  for (const auto& soname : linking->needed) {
    if (from_the_driver(soname) || !loader.find(soname, path, *linking).path.empty()) continue;
    fail(soname, "needs " + soname + ", which is in none of its RPATH/RUNPATH directories, the environment's lib/ " +
                     "and the system's library directories (/etc/ld.so.conf)",
         "install the package that provides " + soname + " into the environment (gpuenv search) or, for a system "
         "library, the distribution's package that has it");
  }
  for (const auto& need : versions->needs) {
    if (is_glibc_library(need.library) && machine.glibc) {
      const auto highest = cb::highest_version(need.versions, "GLIBC_");
      if (highest && cb::version_less(*machine.glibc, highest->numbers)) {
        fail(highest->tag + " (" + need.library + ")",
             "needs " + highest->tag + " of " + need.library + ", but this machine's glibc is " + check.glibc +
                 " (__glibc; CONDA_OVERRIDE_GLIBC when set)",
             "install a build made for glibc " + check.glibc + " or older; a package built by gpuenv build carries "
             "__glibc >=" + cb::dotted(highest->numbers) + ", which keeps the solver from choosing it here");
      }
      continue;
    }
    const auto found = loader.find(need.library, path, *linking);
    if (found.path.empty()) continue;  // reported above as not found
    const auto& defined = loader.definitions(found.path);
    if (defined.empty()) continue;
    for (const auto& version : need.versions) {
      if (std::find(defined.begin(), defined.end(), version) != defined.end()) continue;
      const auto newest = newest_with_prefix(defined, version);
      const bool cxx_runtime = need.library == "libstdc++.so.6" || need.library == "libgcc_s.so.1" ||
                               need.library == "libgomp.so.1";
      fail(version + " (" + need.library + ")",
           "needs " + version + " of " + need.library + ", but the one it loads (" + found.path.string() + ", " +
               found.where + ") defines " + (newest.empty() ? std::string("no such version") : "up to " + newest),
           cxx_runtime ? "install a newer compiler runtime into the environment (gpuenv install -p " + prefix.string() +
                             " " + (need.library == "libstdc++.so.6" ? "libstdcxx" : need.library == "libgomp.so.1" ? "libgomp" : "libgcc") +
                             "), which the environment's programs load before the system's"
                       : "install the version of the package providing " + need.library + " that the package was "
                         "built against");
    }
  }
}

}  // namespace

std::vector<fs::path> ld_so_conf_directories(const fs::path& file) {
  std::vector<fs::path> directories;
  std::size_t entries = 0;
  std::set<std::string> seen;
  const std::function<void(const fs::path&, int)> read = [&](const fs::path& conf, int depth) {
    if (depth > 8 || !seen.insert(conf.string()).second) return;
    std::ifstream in(conf);
    std::string line;
    while (entries < max_conf_entries && std::getline(in, line)) {
      ++entries;
      if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
      const auto first = line.find_first_not_of(" \t");
      if (first == std::string::npos) continue;
      line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
      if (line.starts_with("include") && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
        auto pattern = line.substr(line.find_first_not_of(" \t", 7));
        if (!pattern.starts_with('/')) pattern = (conf.parent_path() / pattern).string();
        glob_t matches{};
        if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
          for (std::size_t index = 0; index < matches.gl_pathc; ++index) read(matches.gl_pathv[index], depth + 1);
        }
        ::globfree(&matches);
      } else if (line.starts_with('/')) {
        directories.emplace_back(line);
      }
    }
  };
  read(file, 0);
  return directories;
}

ElfLoadMachine elf_load_machine(const util::EnvLookup& env) {
  ElfLoadMachine machine;
  system::SurveyOptions options;
  options.program_version = GPUENV_VERSION;
  const auto survey = system::survey_system(env, options);
  for (const auto& package : survey.virtual_packages.packages) {
    if (package.name == "__glibc") machine.glibc = cb::version_numbers(package.version, "");
  }
  machine.system_library_dirs = ld_so_conf_directories("/etc/ld.so.conf");
  for (const char* directory : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) {
    machine.system_library_dirs.emplace_back(directory);
  }
  return machine;
}

ElfLoadCheck check_elf_loading(const fs::path& prefix, const ElfLoadMachine& machine) {
  ElfLoadCheck check;
  if (machine.glibc) check.glibc = cb::dotted(*machine.glibc);
  const auto installed = prefix::read_prefix_records(prefix);
  LoaderView loader(prefix, machine);
  for (const auto& [relative, package] : detail::files_of_prefix(prefix, installed)) {
    const auto path = prefix / relative;
    std::error_code error;
    if (!fs::is_regular_file(fs::symlink_status(path, error))) continue;
    if (elf_machine(path) != this_elf_machine) continue;  // not ELF, or device code (cubins) and other machines'
    check_file(relative, package, prefix, machine, loader, check);
  }
  std::sort(check.problems.begin(), check.problems.end(),
            [](const auto& left, const auto& right) { return left.file < right.file; });
  return check;
}

}  // namespace gpuenv::environment
