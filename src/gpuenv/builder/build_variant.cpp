#include "gpuenv/builder/build_variant.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include "gpuenv/builder/build_script.hpp"
#include "gpuenv/builder/compilers.hpp"
#include "gpuenv/builder/cuda_build.hpp"
#include "gpuenv/builder/elf_post_process.hpp"
#include "gpuenv/builder/glibc_requirement.hpp"
#include "gpuenv/builder/new_prefix_files.hpp"
#include "gpuenv/builder/noarch_python.hpp"
#include "gpuenv/builder/output_channel.hpp"
#include "gpuenv/builder/test_machine.hpp"
#include "gpuenv/builder/work_directory.hpp"
#include "gpuenv/builder/package_output.hpp"
#include "gpuenv/builder/publish_package.hpp"
#include "gpuenv/builder/rendered_recipe.hpp"
#include "gpuenv/builder/resolved_requirements.hpp"
#include "gpuenv/builder/script_templates.hpp"
#include "gpuenv/builder/sources.hpp"
#include "gpuenv/builder/test_files.hpp"
#include "gpuenv/cuda_binary/symbol_version_bytes.hpp"
#include "gpuenv/environment/apply.hpp"
#include "gpuenv/environment/search.hpp"
#include "gpuenv/environment/plan.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The builder's messages go to the log file and the observer alike.
class BuildLog {
 public:
  // Appending: the script's output goes into the same file between lines.
  BuildLog(const fs::path& file, BuildObserver& observer) : observer_(observer) {
    std::ofstream(file, std::ios::binary | std::ios::trunc).flush();
    out_.open(file, std::ios::binary | std::ios::app);
  }
  void line(const std::string& text) {
    out_ << text << '\n';
    out_.flush();
    observer_.step(text);
  }

 private:
  std::ofstream out_;
  BuildObserver& observer_;
};

// The host prefix is the placeholder recorded for every file that holds
// it. conda's installer replaces a binary file's prefix in place, padded
// with NULs, so the placeholder must be at least as long as any prefix the
// package is installed into: like conda-build and rattler-build, pad the
// directory name (host_env_placehold_placehold...) to a 255-character path.
fs::path padded_host_prefix(const fs::path& work_dir) {
  constexpr std::size_t kPrefixLength = 255;
  std::string name = "host_env";
  const std::size_t base = work_dir.string().size() + 1;
  while (base + name.size() < kPrefixLength && name.size() < 240) name += "_placehold";
  if (base + name.size() > kPrefixLength && name.size() > 8) {
    name.resize(std::max<std::size_t>(8, kPrefixLength > base ? kPrefixLength - base : 8));
  }
  return work_dir / name;
}

std::unexpected<BuildError> failure(BuildErrorKind kind, std::string message) {
  return std::unexpected(BuildError{kind, std::move(message)});
}

// The packages linked, in link order (run_exports.hpp reads theirs).
using LinkedPackages = std::vector<specs::PackageRecord>;

std::expected<LinkedPackages, BuildError> create_environment(const fs::path& prefix, const std::vector<std::string>& specs,
                                                             const environment::Settings& settings, const char* role,
                                                             BuildLog& log, BuildObserver& observer) {
  std::error_code ignored;
  fs::create_directories(prefix, ignored);
  if (specs.empty()) return LinkedPackages{};
  std::string listed;
  for (const auto& spec : specs) listed += " " + spec;
  log.line(std::string("creating the ") + role + " environment (" + std::string(settings.platform.str()) + "):" +
           listed);
  environment::ChangeRequest request;
  request.kind = environment::ChangeKind::create;
  request.prefix = prefix;
  request.specs = specs;
  auto plan = environment::plan(settings, request, observer);
  if (!plan) {
    return failure(BuildErrorKind::environment,
                   std::string("cannot create the ") + role + " environment: " + plan.error().message);
  }
  for (const auto& record : plan->solution.link) {
    log.line("  " + record.name + " " + record.version + " " + record.build);
  }
  environment::ApplyOptions options;
  options.command_line = std::string("gpuenv build (") + role + " environment)";
  auto applied = environment::apply(*plan, settings, options, observer);
  if (!applied) {
    return failure(BuildErrorKind::environment,
                   std::string("cannot create the ") + role + " environment: " + applied.error().message);
  }
  return plan->solution.link;
}

// The build environment with the channels' CUDA compiler but without the
// C/C++ compiler packages; nullopt (nothing left behind) when the recipe asks
// for no C/C++ compiler or the channels cannot provide the CUDA one either.
std::optional<LinkedPackages> build_with_channel_cuda_compiler(const fs::path& prefix,
                                                               const BuildRequirementSplit& split,
                                                               const environment::Settings& settings, BuildLog& log,
                                                               BuildObserver& observer) {
  auto specs = split.others;
  bool host_language_compiler = false;
  for (const auto& compiler : split.compilers) {
    if (compiler.language == CompilerLanguage::cuda) {
      specs.push_back(compiler.spec);
    } else {
      host_language_compiler = true;
    }
  }
  if (!host_language_compiler) return std::nullopt;
  auto created = create_environment(prefix, specs, settings, "build", log, observer);
  if (created) return std::move(*created);
  std::error_code ignored;
  fs::remove_all(prefix, ignored);
  return std::nullopt;
}

// The glibc floor the recipe declares itself: stdlib('c')'s c_stdlib_version,
// else a `__glibc >=X` among its own run requirements (not run exports).
std::optional<GlibcFloor> declared_glibc_floor(const recipe::RenderedVariant& variant,
                                               const BuildRequirementSplit& split) {
  const bool stdlib = std::any_of(split.compilers.begin(), split.compilers.end(), [](const auto& compiler) {
    return compiler.language == CompilerLanguage::c_stdlib;
  });
  if (const auto version = variant.variant.find("c_stdlib_version"); stdlib && version != variant.variant.end()) {
    if (auto numbers = cuda_binary::version_numbers(version->second.display(), "")) {
      return GlibcFloor{std::move(*numbers), "c_stdlib_version " + version->second.display()};
    }
  }
  std::vector<std::string> own;
  for (const auto& dependency : variant.requirements().run) {
    if (!dependency.pin) own.push_back(dependency.spec);
  }
  if (auto numbers = glibc_lower_bound(own)) {
    return GlibcFloor{*numbers, "its run requirement __glibc >=" + cuda_binary::dotted(*numbers)};
  }
  return std::nullopt;
}

// issue 34: the highest GLIBC_ version the package's ELF files need becomes
// a run requirement (glibc_requirement.hpp).
std::expected<void, BuildError> require_needed_glibc(const fs::path& host_prefix,
                                                     const std::vector<NewPrefixFile>& files,
                                                     const recipe::RenderedVariant& variant,
                                                     const BuildRequirementSplit& split,
                                                     ResolvedRequirements& resolved, BuildLog& log) {
  std::vector<std::string> paths;
  for (const auto& file : files) {
    if (file.link_target.empty()) paths.push_back(file.entry.path);
  }
  const auto need = highest_glibc_need(host_prefix, paths, [&log](const std::string& line) { log.line(line); });
  auto added = glibc_requirement(need, declared_glibc_floor(variant, split), resolved.run);
  if (!added) return std::unexpected(added.error());
  if (need) {
    log.line("glibc: " + need->file + " needs " + need->tag + " (" + need->library + "), the highest of the package; " +
             (*added ? "run requirement " + **added + " added" : std::string("the run requirements already ask for it")));
  }
  if (*added) resolved.run.push_back(**added);
  return {};
}

// The build environment; compilers from the channels when they have them,
// else the machine's (set in `variables`; a CUDA toolkit into `cuda`).
std::expected<bool, BuildError> create_build_environment(const fs::path& prefix, const std::vector<std::string>& specs,
                                                         const BuildRequirementSplit& split,
                                                         const environment::Settings& settings, BuildLog& log,
                                                         BuildObserver& observer,
                                                         std::map<std::string, std::string>& variables,
                                                         std::optional<CudaBuild>& cuda, LinkedPackages& linked,
                                                         std::optional<std::string>& machine_glibc,
                                                         std::vector<std::string>& runtime_exports) {
  auto created = create_environment(prefix, specs, settings, "build", log, observer);
  if (created || split.compilers.empty()) {
    if (!created) return std::unexpected(created.error());
    linked = std::move(*created);
    return false;
  }
  // The solve failed with compilers in it: try without them before giving up.
  const std::string reason = created.error().message;
  std::error_code ignored;
  fs::remove_all(prefix, ignored);
  auto from_machine = split.compilers;
  auto channel_cuda = cuda ? build_with_channel_cuda_compiler(prefix, split, settings, log, observer) : std::nullopt;
  if (channel_cuda) {
    // The channels have the CUDA compiler (our own cuda-nvcc, say) but not
    // conda-forge's gcc/gxx: keep theirs, only C and C++ from the machine.
    linked = std::move(*channel_cuda);
    std::erase_if(from_machine, [](const auto& compiler) { return compiler.language == CompilerLanguage::cuda; });
  } else {
    auto machine_specs = split.others;
    auto machine_settings = settings;
    if (cuda) {
      auto toolkit = use_machine_cuda_toolkit(*cuda, process_cuda_toolkit_search(),
                                              machine_settings.extra_virtual_packages, machine_specs);
      if (!toolkit) return std::unexpected(toolkit.error());
    }
    auto without = create_environment(prefix, machine_specs, machine_settings, "build", log, observer);
    if (!without) return std::unexpected(without.error());
    linked = std::move(*without);
  }
  std::string missing;
  const char* path = std::getenv("PATH");
  auto compilers = machine_compilers(from_machine, path != nullptr ? path : "/usr/bin:/bin", missing);
  if (!compilers) {
    return failure(BuildErrorKind::environment,
                   "the channels provide no compiler package for this recipe (" + reason +
                       ") and this machine has no " + missing + ": install it (Debian: gcc, g++) or add a channel "
                       "that has the compiler packages");
  }
  for (const auto& compiler : from_machine) {
    const auto language = compiler.language;
    if (language == CompilerLanguage::c_stdlib) {
      // The machine's gcc links the machine's glibc: what is built needs at least that one.
      machine_glibc = machine_glibc_run_export();
      log.line("stdlib: the channels do not provide " + compiler.spec + "; using this machine's C library" +
               (machine_glibc ? " (run export " + *machine_glibc + ")" : std::string()));
      continue;
    }
    const std::string machine = language == CompilerLanguage::c     ? (*compilers)["CC"]
                                : language == CompilerLanguage::cxx ? (*compilers)["CXX"]
                                                                    : machine_toolkit_description(*cuda);
    log.line("compiler: the channels do not provide " + compiler.spec + "; using this machine's " + machine);
    // Its runtime (libgcc, libstdcxx), as the compiler package would have
    // exported it, where the channels have one at least as new
    // (recipes/gcc-runtime); else the package uses the system's.
    const auto version = language == CompilerLanguage::cuda ? std::nullopt : compiler_version(machine);
    for (const auto& spec : version ? compiler_runtime_run_exports(language, *version) : std::vector<std::string>{}) {
      if (std::find(runtime_exports.begin(), runtime_exports.end(), spec) != runtime_exports.end()) continue;
      environment::Reporter quiet;
      if (environment::search(settings, spec, quiet)) {
        runtime_exports.push_back(spec);
        log.line("compiler runtime: run export " + spec);
      } else {
        log.line("compiler runtime: the channels have no " + spec + "; the package will load the system's (build "
                 "recipes/gcc-runtime into a channel to ship it)");
      }
    }
  }
  for (const auto& [name, value] : *compilers) variables[name] = value;
  return true;
}

std::string cpu_count() {
  if (const char* configured = std::getenv("CPU_COUNT"); configured != nullptr && *configured != '\0') {
    return configured;
  }
  return std::to_string(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<recipe::Source> sources_of(const recipe::RenderedVariant& variant) {
  auto sources = variant.recipe.sources;
  if (variant.output_index < variant.recipe.outputs.size()) {
    const auto& own = variant.recipe.outputs[variant.output_index].sources;
    sources.insert(sources.end(), own.begin(), own.end());
  }
  return sources;
}

const std::vector<recipe::TestElement>& tests_of(const recipe::RenderedVariant& variant) {
  const auto& recipe = variant.recipe;
  return variant.output_index < recipe.outputs.size() ? recipe.outputs[variant.output_index].tests : recipe.tests;
}

}  // namespace

const recipe::Build& output_build(const recipe::RenderedVariant& variant) {
  const auto& recipe = variant.recipe;
  return variant.output_index < recipe.outputs.size() ? recipe.outputs[variant.output_index].build : recipe.build;
}

std::string package_subdir(const recipe::RenderedVariant& variant, const std::string& build_platform) {
  if (output_build(variant).noarch) return "noarch";
  const auto target_platform = variant.variant.find("target_platform");
  return target_platform == variant.variant.end() ? build_platform : target_platform->second.display();
}

std::int64_t reproducible_timestamp(const util::EnvLookup& env, const fs::path& recipe_file) {
  if (const auto epoch = env("SOURCE_DATE_EPOCH"); epoch && !epoch->empty()) {
    try {
      return std::stoll(*epoch);
    } catch (const std::exception&) {
      // not a number: fall back to the recipe's time, as if unset
    }
  }
  struct stat info {};
  return ::stat(recipe_file.c_str(), &info) == 0 ? static_cast<std::int64_t>(info.st_mtime) : 0;
}

std::expected<BuiltPackage, BuildError> build_variant(const recipe::RenderedVariant& variant,
                                                      const BuildRequest& request, BuildObserver& observer) {
  const auto start = Clock::now();
  // The output directory is the first channel (output_channel.hpp).
  environment::Settings settings = with_local_channels(*request.settings, {request.output_dir});
  // A CUDA variant on a machine without a driver (every CI runner) sees the
  // machine as conda-forge's CI makes it look: CONDA_OVERRIDE_CUDA is the
  // variant's CUDA version, so a host requirement that depends on __cuda
  // (a CUDA package built earlier) can be installed (test_machine.hpp).
  auto cuda_version = variant_cuda_compiler_version(variant);
  if (!cuda_version) cuda_version = request.configured_cuda_version;
  const auto cuda_override = cuda_override_without_driver(cuda_version, settings);
  if (cuda_override) settings = settings_with_cuda_override(settings, *cuda_override);
  const auto& requirements = variant.requirements();
  const auto& build = output_build(variant);
  const auto target_platform_value = variant.variant.find("target_platform");
  const std::string variant_platform =
      target_platform_value == variant.variant.end() ? request.build_platform : target_platform_value->second.display();
  const std::string subdir = package_subdir(variant, request.build_platform);
  // noarch packages build for the machine they build on.
  const std::string host_platform = build.noarch ? request.build_platform : variant_platform;

  const std::string stem = variant.output_name + "-" + variant.output_version + "-" + variant.build_string;
  const auto output_dir = request.output_dir;
  const auto format = request.package_format.value_or(PackageFormat{package::ArchiveFormat::conda, request.zstd_level});
  const auto package_path = output_dir / subdir / package_file_name(variant, format.archive);
  // The same work path whatever the output directory (work_directory.hpp).
  auto claimed = claim_work_directory(stem, settings.env, [&observer](const std::string& message) {
    observer.step("another build of the same package is running: " + message);
  });
  if (!claimed) return std::unexpected(claimed.error());
  const auto work_dir = claimed->path;
  const auto src_dir = work_dir / "work";
  const auto build_prefix = work_dir / "build_env";
  const auto host_prefix = padded_host_prefix(work_dir);
  std::error_code error;
  // A package left by an earlier build of the same name must not survive a
  // failing one.
  fs::remove(package_path, error);
  fs::remove_all(work_dir, error);
  fs::create_directories(work_dir, error);
  if (error) return failure(BuildErrorKind::packaging, "cannot create the work directory " + work_dir.string() + ": " + error.message());
  fs::create_directories(output_dir / "bld", error);
  if (error) return failure(BuildErrorKind::packaging, "cannot create " + (output_dir / "bld").string() + ": " + error.message());
  BuiltPackage built;
  built.log_file = output_dir / "bld" / (stem + ".log");
  BuildLog log(built.log_file, observer);
  log.line("building " + stem + " (" + subdir + ") from " + request.recipe_file.string() + " in " + work_dir.string());
  if (cuda_override) {
    log.line("no NVIDIA driver here: the build and host environments are solved as CUDA " + *cuda_override +
             " (CONDA_OVERRIDE_CUDA=" + *cuda_override + ", as conda-forge's CI sets it for CUDA builds)");
  }
  auto channel = prepare_local_channel(output_dir, {subdir, variant_platform});
  if (!channel) return std::unexpected(channel.error());
  for (const auto& warning : *channel) observer.warning(warning);

  auto build_specs = environment_specs(requirements.build, variant, "build");
  if (!build_specs) return std::unexpected(build_specs.error());
  auto host_specs = environment_specs(requirements.host, variant, "host");
  if (!host_specs) return std::unexpected(host_specs.error());

  SourceSettings source_settings;
  source_settings.recipe_dir = request.recipe_file.parent_path();
  source_settings.cache_dir = settings.directories.cache_dir;
  source_settings.excluded_dir = output_dir.lexically_normal();
  source_settings.client = settings.client;
  source_settings.log = [&log](std::string_view line) { log.line(std::string(line)); };
  source_settings.archive_dirs = request.source_archive_dirs;
  if (auto fetched = fetch_sources(sources_of(variant), src_dir, source_settings); !fetched) {
    return std::unexpected(fetched.error());
  }

  std::map<std::string, std::string> variables;
  environment::Settings build_settings = settings;
  if (const auto platform = specs::Platform::parse(request.build_platform)) build_settings.platform = *platform;
  const auto split = split_build_requirements(*build_specs, variant.variant, variant_platform);
  auto cuda = cuda_build_for(split, variant);
  if (!cuda) return std::unexpected(cuda.error());
  LinkedPackages build_linked;
  std::optional<std::string> machine_glibc;
  std::vector<std::string> runtime_exports;
  auto machine = create_build_environment(build_prefix, *build_specs, split, build_settings, log, observer, variables,
                                          *cuda, build_linked, machine_glibc, runtime_exports);
  if (!machine) return std::unexpected(machine.error());
  if (*cuda) variables.merge(cuda_build_variables(**cuda));
  built.used_machine_compilers = *machine;
  auto build_exports = environment_run_exports(build_prefix, build_linked, *build_specs);
  if (!build_exports) return std::unexpected(build_exports.error());
  if (machine_glibc) {
    // What the channels' sysroot would have exported, for the machine's glibc;
    // ignore_run_exports names it as the sysroot it stands in for.
    const auto stdlib = std::find_if(split.compilers.begin(), split.compilers.end(), [](const auto& compiler) {
      return compiler.language == CompilerLanguage::c_stdlib;
    });
    PackageRunExports exported;
    exported.package = stdlib->spec.substr(0, stdlib->spec.find_first_of(" =<>!~["));
    exported.exports.strong.push_back(*machine_glibc);
    build_exports->push_back(std::move(exported));
  }
  if (!runtime_exports.empty()) {
    // Named as the compiler package it stands in for, so ignore_run_exports
    // can name it as for conda-forge's.
    const auto compiler = std::find_if(split.compilers.begin(), split.compilers.end(), [](const auto& each) {
      return each.language == CompilerLanguage::c || each.language == CompilerLanguage::cxx;
    });
    PackageRunExports exported;
    exported.package = compiler->spec.substr(0, compiler->spec.find_first_of(" =<>!~["));
    exported.exports.strong = runtime_exports;
    build_exports->push_back(std::move(exported));
  }
  const auto& ignore = requirements.ignore_run_exports;
  auto host_with_exports = *host_specs;
  append_new_specs(host_with_exports, apply_run_exports(*build_exports, {}, ignore, build.noarch.has_value()).host);
  environment::Settings host_settings = settings;
  if (const auto platform = specs::Platform::parse(host_platform)) host_settings.platform = *platform;
  auto host = create_environment(host_prefix, host_with_exports, host_settings, "host", log, observer);
  if (!host) return std::unexpected(host.error());
  auto host_exports = environment_run_exports(host_prefix, *host, *host_specs);
  if (!host_exports) return std::unexpected(host_exports.error());
  auto resolved = final_requirements(
      variant, *host, apply_run_exports(*build_exports, *host_exports, ignore, build.noarch.has_value()),
      request.pin_run_as_build);
  if (!resolved) return std::unexpected(resolved.error());
  const auto before = prefix_listing(host_prefix);

  variables["PREFIX"] = host_prefix.string();
  variables["BUILD_PREFIX"] = build_prefix.string();
  variables["SRC_DIR"] = src_dir.string();
  variables["RECIPE_DIR"] = request.recipe_file.parent_path().string();
  variables["CPU_COUNT"] = cpu_count();
  variables["PKG_NAME"] = variant.output_name;
  variables["PKG_VERSION"] = variant.output_version;
  variables["PKG_BUILDNUM"] = std::to_string(build.number);
  variables["PKG_BUILD_STRING"] = variant.build_string;
  variables["PKG_HASH"] = "h" + variant.hash;
  variables["target_platform"] = variant_platform;
  variables["build_platform"] = request.build_platform;
  variables["SUBDIR"] = subdir;
  variables["SHLIB_EXT"] = ".so";
  variables["CONDA_BUILD"] = "1";
  // As rattler-build: pip installs only from the host environment, keeps no
  // cache of its own and ignores the user's site-packages; a noarch package
  // gets no bytecode.
  variables["PYTHONNOUSERSITE"] = "1";
  variables["PIP_NO_INDEX"] = "True";
  variables["PIP_CACHE_DIR"] = (work_dir.parent_path() / "pip_cache").string();
  if (build.noarch) variables["PYTHONDONTWRITEBYTECODE"] = "1";
  // Python's locations when python is in the host environment, as
  // conda-build and rattler-build set them (recipes write "${SP_DIR}/...").
  const auto python = std::find_if(host->begin(), host->end(),
                                   [](const specs::PackageRecord& record) { return record.name == "python"; });
  if (python != host->end()) {
    const auto& version = python->version;
    const auto second_dot = version.find('.', version.find('.') + 1);
    const auto major_minor = version.substr(0, second_dot);
    variables["PYTHON"] = (host_prefix / "bin/python").string();
    variables["PY_VER"] = major_minor;
    variables["PY3K"] = major_minor.starts_with("3") ? "1" : "0";
    variables["STDLIB_DIR"] = (host_prefix / "lib" / ("python" + major_minor)).string();
    variables["SP_DIR"] = (host_prefix / "lib" / ("python" + major_minor) / "site-packages").string();
  }
  if (cuda_override) variables["CONDA_OVERRIDE_CUDA"] = *cuda_override;
  ScriptTemplateNames template_names;
  template_names.variant = &variant;
  template_names.script_variables = variables;
  // Selectors of a noarch build follow the machine it builds on (unix is
  // true), while ${{ target_platform }} still reads "noarch" from the
  // variant, as in rattler-build.
  template_names.target_platform = host_platform;
  template_names.build_platform = request.build_platform;
  template_names.host_platform = host_platform;
  template_names.environment = util::environment_variables();
  auto script = render_script_templates(build.script, template_names, "the build script");
  if (!script) return std::unexpected(script.error());
  ScriptRun run;
  run.work_dir = work_dir;
  run.src_dir = src_dir;
  run.recipe_dir = request.recipe_file.parent_path();
  run.host_prefix = host_prefix;
  run.build_prefix = build_prefix;
  run.log_file = built.log_file;
  run.variables = std::move(variables);
  run.on_output = [&observer](std::string_view piece) { observer.script_output(piece); };
  log.line("running the build script in " + src_dir.string());
  const auto script_start = Clock::now();
  if (auto ran = run_build_script(*script, run); !ran) return std::unexpected(ran.error());
  built.script_seconds = seconds_since(script_start);

  ElfPostProcessRequest elf;
  elf.host_prefix = host_prefix;
  elf.before = before;
  elf.settings = build.dynamic_linking;
  elf.run_requirements = requirement_names(resolved->run);  // after run_exports
  elf.machine_compilers = built.used_machine_compilers;
  const char* search_path = std::getenv("PATH");
  elf.search_path = search_path != nullptr ? search_path : "/usr/bin:/bin";
  elf.log = [&log](const std::string& line) { log.line(line); };
  auto elf_done = post_process_elf(elf);
  if (!elf_done) return std::unexpected(elf_done.error());
  built.elf_seconds = elf_done->seconds;

  auto files = new_prefix_files(host_prefix, before, build.prefix_detection);
  if (!files) return std::unexpected(files.error());
  if (*cuda) {
    const auto log_line = [&log](const std::string& line) { log.line(line); };
    auto checked = check_cuda_package(**cuda, *files, variant.recipe.extra, log_line);
    if (!checked) return std::unexpected(checked.error());
    built.cuda_check = std::move(*checked);
  }
  if (!build.noarch) {
    auto glibc = require_needed_glibc(host_prefix, *files, variant, split, *resolved, log);
    if (!glibc) return std::unexpected(glibc.error());
  }
  std::vector<package::PackageMember> extra_members;
  if (build.noarch == "python") {
    apply_noarch_python_layout(*files, build.python.entry_points);
    auto link = noarch_python_link_json(build.python.entry_points, request.timestamp);
    if (!link) return std::unexpected(link.error());
    extra_members.push_back(std::move(*link));
  }
  built.files = files->size();
  for (const auto& file : *files) built.prefix_files += file.entry.has_prefix() ? 1 : 0;
  log.line("packaging " + std::to_string(built.files) + " files (" + std::to_string(built.prefix_files) +
           " holding the host prefix)");
  RenderedRecipeInput rendered;
  rendered.variant = &variant;
  rendered.build_specs = *build_specs;
  rendered.host_specs = host_with_exports;
  rendered.requirements = &*resolved;
  rendered.subdir = subdir;
  rendered.build_platform = request.build_platform;
  rendered.build_environment = build_linked;
  rendered.host_environment = *host;
  package::PackageMember rendered_member;
  rendered_member.path = "info/recipe/rendered_recipe.yaml";
  rendered_member.content = rendered_recipe_yaml(rendered);
  rendered_member.mtime = request.timestamp;
  extra_members.push_back(std::move(rendered_member));
  PackageOutput output;
  output.variant = &variant;
  output.subdir = subdir;
  output.recipe_text = request.recipe_text;
  output.timestamp = request.timestamp;
  output.src_dir = src_dir;
  output.recipe_dir = request.recipe_file.parent_path();
  output.format = format;
  output.source_override_json = request.source_override_json;
  output.requirements = std::move(*resolved);
  // `${{ }}` in test scripts is rendered here, as rattler-build renders it
  // with the recipe: the package's identity and the variant, not the build's
  // paths (the tests run elsewhere, in their own environments).
  auto tests = tests_of(variant);
  ScriptTemplateNames test_names = template_names;
  test_names.script_variables.clear();
  for (const char* kept : {"PKG_NAME", "PKG_VERSION", "PKG_BUILDNUM", "PKG_BUILD_STRING", "PKG_HASH",
                           "target_platform", "build_platform", "SUBDIR", "SHLIB_EXT"}) {
    if (const auto found = template_names.script_variables.find(kept); found != template_names.script_variables.end()) {
      test_names.script_variables.insert(*found);
    }
  }
  for (std::size_t index = 0; index < tests.size(); ++index) {
    if (tests[index].kind != recipe::TestElement::Kind::script) continue;
    auto rendered = render_script_templates(tests[index].script.script, test_names,
                                            "test " + std::to_string(index + 1) + "'s script");
    if (!rendered) return std::unexpected(rendered.error());
    tests[index].script.script = std::move(*rendered);
  }
  auto test_members = package_test_members(tests, {run.recipe_dir, src_dir, request.timestamp});
  if (!test_members) return std::unexpected(test_members.error());
  output.extra_members = std::move(extra_members);
  output.extra_members.insert(output.extra_members.end(), test_members->begin(), test_members->end());
  const auto staging_dir = work_dir / "staging";
  auto written = write_package_output(output, *files, staging_dir);
  if (!written) return std::unexpected(written.error());
  log.line("wrote " + written->string());
  auto tested = test_and_publish({*written, staging_dir, package_path, work_dir / "test", built.log_file, &settings,
                                  request.build_platform, request.run_tests},
                                 observer);
  if (!tested) return std::unexpected(tested.error());
  built.tests = *tested;
  built.package = package_path;
  log.line("moved into the output channel: " + built.package.string());
  fs::remove_all(work_dir, error);
  built.seconds = seconds_since(start);
  return built;
}

}  // namespace gpuenv::build
