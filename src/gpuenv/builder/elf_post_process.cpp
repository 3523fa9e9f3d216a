#include "gpuenv/builder/elf_post_process.hpp"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "gpuenv/builder/new_prefix_files.hpp"
#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/builder/rpath_rewrite.hpp"
#include "gpuenv/cuda_binary/dynamic_linking.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/util/thread_pool.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

std::unexpected<BuildError> linking_failure(std::string message) {
  return std::unexpected(BuildError{BuildErrorKind::linking, std::move(message)});
}

bool relocation_wanted(const recipe::DynamicLinking& settings, const std::string& path) {
  if (settings.binary_relocation == false) return false;
  if (settings.binary_relocation_paths.empty()) return true;
  return std::any_of(settings.binary_relocation_paths.begin(), settings.binary_relocation_paths.end(),
                     [&](const std::string& pattern) { return ::fnmatch(pattern.c_str(), path.c_str(), 0) == 0; });
}

bool links_prefix_libraries(const fs::path& prefix, const std::vector<std::string>& needed,
                            const std::vector<std::string>& default_rpaths) {
  std::error_code ignored;
  for (const auto& soname : needed) {
    for (const auto& directory : default_rpaths) {
      if (fs::exists(prefix / directory / soname, ignored)) return true;
    }
  }
  return false;
}

// patchelf, with the file made writable for it and its mode put back.
std::expected<void, BuildError> run_patchelf(const std::string& patchelf, const fs::path& file,
                                             const std::vector<std::string>& arguments,
                                             const std::vector<std::string>& environment) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return linking_failure("cannot relocate " + file.string() + ": it vanished");
  const bool writable = (info.st_mode & S_IWUSR) != 0;
  if (!writable) ::chmod(file.c_str(), info.st_mode | S_IWUSR);
  ProcessRequest request;
  request.argv = {patchelf};
  request.argv.insert(request.argv.end(), arguments.begin(), arguments.end());
  request.argv.push_back(file.string());
  request.environment = environment;
  request.working_directory = file.parent_path();
  request.on_output = [](std::string_view) {};
  const auto result = run_process(request);
  if (!writable) ::chmod(file.c_str(), info.st_mode);
  if (!result.succeeded()) {
    std::string command;
    for (const auto& argument : request.argv) command += (command.empty() ? "" : " ") + argument;
    return linking_failure("relocating " + file.string() + " failed: `" + command + "` " +
                           (result.started ? "exited with " + std::to_string(result.exit_code) + ":\n" + result.output_tail
                                           : "did not start: " + result.start_error) +
                           "\nset build.dynamic_linking.binary_relocation: false to package the file unchanged");
  }
  return {};
}

struct ElfFile {
  std::string path;
  cuda_binary::DynamicLinking linking;
};

// One patchelf run: which file, with which arguments, and the rewrite for the log.
struct Relocation {
  std::string path;
  std::vector<std::string> arguments;
  std::string from, to;
};

// The file's new search path; nothing when it stays as it is.
std::optional<Relocation> plan_relocation(const ElfPostProcessRequest& request, const ElfFile& file,
                                          const std::vector<std::string>& default_rpaths) {
  // The loader ignores DT_RPATH when DT_RUNPATH is there; keep the kind the
  // linker chose (DT_RPATH also serves the libraries the file loads).
  const bool uses_rpath = file.linking.runpath.empty() && !file.linking.rpath.empty();
  RpathRewriteInput input;
  input.current = uses_rpath ? file.linking.rpath : file.linking.runpath;
  input.file = file.path;
  input.prefix = request.host_prefix;
  input.allowlist = request.settings.rpath_allowlist;
  input.default_rpaths = default_rpaths;
  input.links_prefix_libraries = links_prefix_libraries(request.host_prefix, file.linking.needed, default_rpaths);
  const auto rewrite = rewrite_rpath(input);
  for (const auto& dropped : rewrite.dropped) {
    request.log("relocation: " + file.path + ": rpath entry " + dropped +
                " is outside the host prefix, dropped (keep it with dynamic_linking.rpath_allowlist)");
  }
  const auto wanted = rewrite.joined();
  if (wanted == input.current) return std::nullopt;
  Relocation relocation{file.path, {}, input.current, wanted};
  if (wanted.empty()) {
    relocation.arguments = {"--remove-rpath"};
  } else {
    if (uses_rpath) relocation.arguments.push_back("--force-rpath");
    relocation.arguments.insert(relocation.arguments.end(), {"--set-rpath", wanted});
  }
  return relocation;
}

// One patchelf process per file, as many at once as the machine has
// threads: each is a few milliseconds of process start, and the files are
// independent, so the bytes do not depend on the order.
std::expected<void, BuildError> run_relocations(const ElfPostProcessRequest& request,
                                                const std::vector<Relocation>& relocations) {
  if (relocations.empty()) return {};
  const auto patchelf = find_on_path("patchelf", request.search_path);
  if (patchelf.empty()) {
    const auto& first = relocations.front();
    return linking_failure("relocating " + first.path + " (rpath " + first.from + " -> " + first.to +
                           ") needs patchelf, which is not on PATH: install it (Debian: apt-get install patchelf) "
                           "or set build.dynamic_linking.binary_relocation: false");
  }
  const auto environment = current_environment();
  std::vector<std::expected<void, BuildError>> outcomes(relocations.size());
  {
    util::ThreadPool pool(std::min<std::size_t>(relocations.size(), std::max(1u, std::thread::hardware_concurrency())));
    for (std::size_t index = 0; index < relocations.size(); ++index) {
      pool.submit([&, index] {
        outcomes[index] =
            run_patchelf(patchelf, request.host_prefix / relocations[index].path, relocations[index].arguments, environment);
      });
    }
  }
  for (std::size_t index = 0; index < relocations.size(); ++index) {
    if (!outcomes[index]) return std::unexpected(outcomes[index].error());
    const auto& relocation = relocations[index];
    request.log("relocation: " + relocation.path + ": rpath " + (relocation.from.empty() ? "(none)" : relocation.from) +
                " -> " + (relocation.to.empty() ? "(none)" : relocation.to));
  }
  return {};
}

std::vector<HostPackageFiles> host_package_files(const fs::path& prefix,
                                                 const std::function<void(const std::string&)>& log) {
  auto installed = prefix::read_prefix_records(prefix);
  for (const auto& problem : installed.problems) log("linking check: " + problem);
  std::vector<HostPackageFiles> packages;
  for (auto& record : installed.records) packages.push_back({record.package.name, std::move(record.files)});
  return packages;
}

std::string overlink_line(const Overlink& overlink) {
  return "overlinking: " + overlink.file + " links " + overlink.soname +
         (overlink.host_provider.empty()
              ? ", which neither the package, its run requirements nor the system provides"
              : ", which " + overlink.host_provider + " provides in the host environment, but " +
                    overlink.host_provider + " is not a run requirement: add it to requirements.run") +
         " (or allow it with build.dynamic_linking.missing_dso_allowlist)";
}

std::string overdepend_line(const Overdepend& overdepend) {
  std::string libraries;
  for (const auto& library : overdepend.libraries) libraries += (libraries.empty() ? "" : ", ") + library;
  return "overdepending: the run requirement " + overdepend.package + " ships shared libraries (" + libraries +
         ") that no ELF file of the package links: remove it from requirements.run unless something else needs it";
}

}  // namespace

std::set<std::string> requirement_names(const std::vector<std::string>& specs) {
  std::set<std::string> names;
  for (const auto& spec : specs) {
    if (auto name = specs::MatchSpec::extract_name(spec)) names.insert(std::move(*name));
  }
  return names;
}

std::expected<ElfPostProcessResult, BuildError> post_process_elf(const ElfPostProcessRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  ElfPostProcessResult result;
  LinkingCheckInput check;
  std::vector<ElfFile> elf_files;
  for (const auto& path : prefix_listing(request.host_prefix)) {
    if (request.before.contains(path)) continue;
    check.package_files.push_back(path);
    const auto file = request.host_prefix / path;
    std::error_code error;
    if (!fs::is_regular_file(fs::symlink_status(file, error))) continue;  // links: their target is checked
    auto linking = cuda_binary::read_dynamic_linking(file.string());
    if (!linking) {
      if (linking.error().kind != cuda_binary::ReadErrorKind::not_a_binary) {
        request.log("relocation: " + path + " left as it is, it cannot be read as ELF: " + linking.error().message);
      }
      continue;
    }
    if (!linking->dynamic) continue;  // static executables, object files
    elf_files.push_back({path, std::move(*linking)});
  }
  result.elf_files = elf_files.size();

  const auto default_rpaths = effective_default_rpaths(request.settings.rpaths);
  std::vector<Relocation> relocations;
  for (const auto& file : elf_files) {
    if (!relocation_wanted(request.settings, file.path)) continue;
    if (auto planned = plan_relocation(request, file, default_rpaths)) relocations.push_back(std::move(*planned));
  }
  if (auto relocated = run_relocations(request, relocations); !relocated) return std::unexpected(relocated.error());
  result.relocated = relocations.size();

  for (auto& file : elf_files) {
    check.elf_files.push_back({file.path, file.linking.soname, std::move(file.linking.needed)});
  }
  check.host_packages = host_package_files(request.host_prefix, request.log);
  check.run_requirements = request.run_requirements;
  check.missing_dso_allowlist = request.settings.missing_dso_allowlist;
  check.machine_compilers = request.machine_compilers;
  result.linking = check_linking(check);
  // The error quotes the first problems; the log has them all.
  constexpr std::size_t kQuotedProblems = 20;
  std::string errors;
  std::size_t error_count = 0;
  auto report = [&](const std::optional<std::string>& behaviour, const std::string& line) {
    const bool fatal = behaviour == "error";
    request.log((fatal ? "error: " : "warning: ") + line);
    if (fatal && ++error_count <= kQuotedProblems) errors += "\n  " + line;
  };
  for (const auto& overlink : result.linking.overlinks) {
    report(request.settings.overlinking_behavior, overlink_line(overlink));
  }
  for (const auto& overdepend : result.linking.overdepends) {
    report(request.settings.overdepending_behavior, overdepend_line(overdepend));
  }
  if (error_count > kQuotedProblems) {
    errors += "\n  and " + std::to_string(error_count - kQuotedProblems) + " more (the build log lists them all)";
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  request.log("ELF files: " + std::to_string(result.elf_files) + ", relocated " + std::to_string(result.relocated) +
              ", " + std::to_string(result.linking.overlinks.size()) + " overlinking, " +
              std::to_string(result.linking.overdepends.size()) + " overdepending (" +
              std::to_string(static_cast<int>(result.seconds * 1000)) + " ms)");
  if (!errors.empty()) {
    return linking_failure("the package's ELF files fail the linking check (dynamic_linking's overlinking_behavior "
                           "or overdepending_behavior is error):" + errors);
  }
  return result;
}

}  // namespace gpuenv::build
