#include "gpuenv/ci/job_runners.hpp"

#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <system_error>

#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/ci/chroot_command.hpp"
#include "gpuenv/ci/dockerfile.hpp"
#include "gpuenv/ci/gpuenv_bundle.hpp"
#include "gpuenv/ci/preflight.hpp"
#include "gpuenv/ci/rootfs_builder.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::ci::detail {
namespace {

namespace fs = std::filesystem;

std::string host_path(const CiRunRequest& request) {
  const auto path = request.environment.find("PATH");
  return path != request.environment.end() ? path->second : "/usr/local/bin:/usr/bin:/bin";
}

build::ProcessResult run_streamed(const CiRunRequest& request, const std::vector<std::string>& argv,
                                  const std::vector<std::string>& environment) {
  build::ProcessRequest process;
  process.argv = argv;
  process.environment = environment;
  process.working_directory = "/";
  process.on_output = request.on_output;
  return build::run_process(process);
}

// The last non-empty line of a command's output: the one that says why.
std::string last_line(const std::string& output) {
  const auto end = output.find_last_not_of(" \n\r\t");
  if (end == std::string::npos) return "no output";
  const auto start = output.find_last_of('\n', end);
  return output.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

CiError unavailable(RunnerKind runner, std::string why) {
  return CiError{CiError::Kind::unavailable, std::string(runner_name(runner)),
                 fmt::format("runner {}: {}", runner_name(runner), why)};
}

// The variant files, each in its own folder so equal names do not collide.
std::vector<std::string> mounted_variant_files(const JobContext& context) {
  std::vector<std::string> files;
  for (std::size_t index = 0; index < context.variant_files.size(); ++index) {
    files.push_back(fmt::format("{}/{}/{}", kVariantsMount, index, context.variant_files[index].filename().string()));
  }
  return files;
}

BuildPaths mounted_paths(const JobContext& context) {
  BuildPaths paths{"gpuenv", fmt::format("{}/{}", kRecipeMount, context.recipe_file.filename().string()),
                   mounted_variant_files(context), kOutputMount, context.inputs->channel_arguments(true), {}, {}};
  if (context.inputs->source) paths.source = context.inputs->source->in_image;
  paths.source_archives = context.inputs->source_archive_arguments(true);
  return paths;
}

// The image's package and source caches: kept between runs, one per image
// so packages of one image's solves never meet another's.
fs::path image_cache(const CiRunRequest& request, const ImageDefinition& image) {
  return request.gpuenv_cache_dir / "ci-cache" / image.name;
}

}  // namespace

std::vector<std::string> chroot_environment(const ImageDefinition& image, bool with_image_cuda) {
  std::string path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  std::vector<std::string> environment{"HOME=/tmp", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
                                       fmt::format("GPUENV_CACHE_DIR={}/gpuenv", kCacheMount),
                                       fmt::format("CONDA_PKGS_DIRS={}/pkgs", kCacheMount),
                                       "CC=/usr/bin/" + image.c_compiler, "CXX=/usr/bin/" + image.cxx_compiler};
  if (image.cuda && with_image_cuda) {
    path = image.cuda->home + "/bin:" + path;
    environment.push_back("CUDA_HOME=" + image.cuda->home);
    environment.push_back("CUDA_PATH=" + image.cuda->home);
    environment.push_back("NVCC_CCBIN=/usr/bin/" + image.cxx_compiler);
  }
  environment.push_back("PATH=" + path);
  return environment;
}

namespace {

// The running gpuenv, bundled for an image that lacks its libraries.
BundleRequest bundle_request_for(const CiRunRequest& request) {
  BundleRequest bundle;
  bundle.binary = request.gpuenv_binary;
  bundle.gpuenv_cache_dir = request.gpuenv_cache_dir;
  bundle.on_step = request.on_step;
  bundle.on_output = request.on_output;
  return bundle;
}

std::expected<std::string, CiError> run_in_image(const CiRunRequest& request, ChrootInvocation invocation,
                                                 const std::string& what) {
  auto command = chroot_command(invocation);
  if (!command) return std::unexpected(command.error());
  return run_logged(request, *command, what, invocation.root.filename().string());
}

}  // namespace

fs::path host_ca_bundle(const CiRunRequest& request) {
  for (const char* variable : {"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"}) {
    const auto value = request.environment.find(variable);
    if (value == request.environment.end() || value->second.empty()) continue;
    std::error_code error;
    const auto resolved = fs::canonical(value->second, error);
    if (!error && fs::is_regular_file(resolved, error)) return resolved;
  }
  return {};
}

std::vector<std::string> ca_bundle_environment() {
  std::vector<std::string> variables;
  for (const char* variable : {"REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "PIP_CERT"}) {
    variables.push_back(std::string(variable) + "=" + kCaBundleMount);
  }
  return variables;
}

std::vector<std::string> build_arguments(const CiRunRequest& request, const CiJob& job, const BuildPaths& paths) {
  std::vector<std::string> argv{paths.gpuenv, "build", paths.recipe_file};
  for (const auto& file : paths.variant_files) {
    argv.push_back("-m");
    argv.push_back(file);
  }
  for (const auto& argument : job.variant_arguments) {
    argv.push_back("--variant");
    argv.push_back(argument);
  }
  for (const auto& channel : paths.channels) {
    argv.push_back("-c");
    argv.push_back(channel);
  }
  if (request.override_channels) argv.push_back("--override-channels");
  if (!paths.source.empty()) {
    argv.push_back("--source");
    argv.push_back(paths.source);
  }
  if (request.source_version) {
    argv.push_back("--source-version");
    argv.push_back(*request.source_version);
  }
  for (const auto& directory : paths.source_archives) {
    argv.push_back("--source-archives");
    argv.push_back(directory);
  }
  if (request.skip_existing) argv.push_back("--skip-existing=local");
  argv.push_back("--output-dir");
  argv.push_back(paths.output_dir);
  argv.push_back("--json");
  return argv;
}

std::expected<std::string, CiError> run_logged(const CiRunRequest& request, const std::vector<std::string>& argv,
                                               const std::string& what, const std::string& input) {
  if (request.on_step) request.on_step(what);
  const auto result = run_streamed(request, argv, build::current_environment());
  if (result.succeeded()) return result.output_tail;
  const auto why = result.started ? fmt::format("exit status {}", result.exit_code) : result.start_error;
  return std::unexpected(CiError{CiError::Kind::run, input,
                                 fmt::format("{} failed ({}); its last output:\n{}", what, why, result.output_tail)});
}

std::expected<void, CiError> check_runner(const CiRunRequest& request, RunnerKind runner) {
  switch (runner) {
    case RunnerKind::host: return {};
    case RunnerKind::chroot:
      if (::geteuid() != 0) {
        return std::unexpected(unavailable(runner, "needs root (unshare --mount, mount --bind, chroot); run it as "
                                                   "root, or use --runner podman or --runner host"));
      }
      if (build::find_on_path("debootstrap", host_path(request) + ":/usr/sbin:/sbin").empty()) {
        return std::unexpected(unavailable(runner, "debootstrap is not installed; `apt-get install debootstrap` "
                                                   "(scripts/setup.sh does)"));
      }
      return {};
    case RunnerKind::docker:
    case RunnerKind::podman: {
      const std::string engine(runner_name(runner));
      const auto program = build::find_on_path(engine, host_path(request));
      if (program.empty()) {
        return std::unexpected(unavailable(runner, fmt::format("{} is not installed here; use --runner chroot (root "
                                                               "and debootstrap, no engine needed)",
                                                               engine)));
      }
      const auto info = run_streamed(CiRunRequest{}, {program, "info"}, build::current_environment());
      if (!info.succeeded()) {
        return std::unexpected(unavailable(
            runner, fmt::format("`{} info` failed: its daemon or service is not running here ({}); use --runner "
                                "chroot (root and debootstrap, no engine needed)",
                                engine, last_line(info.output_tail))));
      }
      return {};
    }
  }
  return {};
}

std::expected<void, CiError> run_host_job(const CiRunRequest& request, const JobContext& context) {
  BuildPaths paths{request.gpuenv_binary.string(), context.recipe_file.string(), {}, request.output_dir.string(),
                   context.inputs->channel_arguments(false), {}, {}};
  for (const auto& file : context.variant_files) paths.variant_files.push_back(file.string());
  if (context.inputs->source) paths.source = context.inputs->source->host.string();
  paths.source_archives = context.inputs->source_archive_arguments(false);
  const auto argv = with_stdout_to((request.output_dir / context.stdout_name).string(),
                                   build_arguments(request, *context.job, paths));
  if (request.on_step) request.on_step(fmt::format("gpuenv build {} on the host", context.recipe_file.string()));
  const auto ran = run_streamed(request, argv, build::current_environment());
  if (!ran.started) {
    return std::unexpected(CiError{CiError::Kind::run, context.recipe_file.string(), ran.start_error});
  }
  return {};
}

std::expected<void, CiError> run_chroot_job(const CiRunRequest& request, const JobContext& context,
                                            CiJobResult& result) {
  auto mirror = mirror_for_image(request.mirror, *context.image);
  if (!mirror) return std::unexpected(mirror.error());
  RootfsRequest rootfs_request;
  rootfs_request.image = *context.image;
  rootfs_request.mirror = *mirror;
  rootfs_request.gpuenv_cache_dir = request.gpuenv_cache_dir;
  rootfs_request.on_step = request.on_step;
  rootfs_request.on_output = request.on_output;
  auto rootfs = ensure_rootfs(rootfs_request);
  if (!rootfs) return std::unexpected(rootfs.error());
  result.rootfs_cached = rootfs->cached;
  result.rootfs_seconds = rootfs->seconds;

  const auto cache = image_cache(request, *context.image);
  std::error_code error;
  fs::create_directories(cache, error);
  ChrootInvocation invocation;
  invocation.root = rootfs->path;
  invocation.environment = chroot_environment(*context.image);
  invocation.mounts = {BindMount{context.recipe_file.parent_path(), kRecipeMount, true},
                       BindMount{request.output_dir, kOutputMount, false}, BindMount{cache, kCacheMount, false}};
  // What ldd must resolve inside the image: gpuenv, and a bundle's dlopened libraries.
  std::vector<std::string> elf_files{kGpuenvMount};
  if (context.image->gpuenv_bundle.empty()) {
    invocation.mounts.push_back(BindMount{request.gpuenv_binary, kGpuenvMount, true});
  } else {
    auto bundle = ensure_gpuenv_bundle(bundle_request_for(request));
    if (!bundle) return std::unexpected(bundle.error());
    invocation.mounts.push_back(BindMount{*bundle, kGpuenvBundleDir, true});
    elf_files = {std::string(kGpuenvBundleDir) + "/gpuenv"};
    for (const auto name : kDlopenedLibraries) elf_files.push_back(fmt::format("{}/{}", kGpuenvBundleDir, name));
  }
  const auto variant_files = mounted_variant_files(context);
  for (std::size_t index = 0; index < variant_files.size(); ++index) {
    invocation.mounts.push_back(BindMount{context.variant_files[index], variant_files[index], true});
  }
  for (const auto& mount : context.inputs->read_only_mounts()) invocation.mounts.push_back(mount);
  if (const auto bundle = host_ca_bundle(request); !bundle.empty()) {
    invocation.mounts.push_back(BindMount{bundle, kCaBundleMount, true});
    for (auto& variable : ca_bundle_environment()) invocation.environment.push_back(std::move(variable));
  }
  invocation.working_directory = kOutputMount;

  for (const auto& file : elf_files) {  // one at a time: the check reads the output's last lines
    invocation.argv = {"ldd", file};
    const auto ldd = run_in_image(request, invocation, fmt::format("ldd {} in image {}", file, context.image->name));
    if (!ldd) return std::unexpected(ldd.error());
    if (auto libraries = check_shared_libraries(*ldd, context.image->name); !libraries) {
      return std::unexpected(libraries.error());
    }
  }
  const auto wanted = variant_value(context.job->variant_arguments, "cuda_compiler_version");
  if (!wanted.empty() && wanted != "None") {
    // `sh -c` so nvcc is found on the build's PATH, as the build finds it.
    invocation.argv = {"sh", "-c", "nvcc --version 2>&1 || true"};
    const auto nvcc = run_in_image(request, invocation, "nvcc --version in image " + context.image->name);
    if (!nvcc) return std::unexpected(nvcc.error());
    if (auto same = check_nvcc_release(*nvcc, wanted, context.image->name); !same) {
      // compiler('cuda') installs the channel's nvcc of that version when a
      // channel has it: the image's own nvcc is then not what builds.
      auto compiler = variant_value(context.job->variant_arguments, "cuda_compiler");
      if (compiler.empty()) compiler = "cuda-nvcc";
      const auto package = compiler + "_" + request.target_platform;
      std::vector<fs::path> channels{request.output_dir};
      for (const auto& channel : context.inputs->channels) {
        if (channel.local) channels.push_back(channel.local->host);
      }
      const auto provider = channel_with_cuda_compiler(channels, package, wanted);
      if (!provider) return std::unexpected(same.error());
      if (request.on_step) {
        request.on_step(fmt::format("image {}: nvcc is not CUDA {}, but {} has {} ={}: the build environment takes "
                                    "that compiler, and the image's toolkit is left off PATH, CUDA_HOME and "
                                    "CUDA_PATH",
                                    context.image->name, wanted, provider->string(), package, wanted));
      }
      // Nothing may find the image's other CUDA: a build that follows
      // CUDA_PATH would mix its headers with the channel's nvcc.
      invocation.environment = chroot_environment(*context.image, false);
      if (!host_ca_bundle(request).empty()) {
        for (auto& variable : ca_bundle_environment()) invocation.environment.push_back(std::move(variable));
      }
    }
  }
  invocation.argv = with_stdout_to(fmt::format("{}/{}", kOutputMount, context.stdout_name),
                                   build_arguments(request, *context.job, mounted_paths(context)));
  auto command = chroot_command(invocation);
  if (!command) return std::unexpected(command.error());
  if (request.on_step) request.on_step("gpuenv build in the chroot of " + rootfs->path.string());
  const auto ran = run_streamed(request, *command, build::current_environment());
  if (!ran.started) return std::unexpected(CiError{CiError::Kind::run, context.image->name, ran.start_error});
  return {};
}

std::expected<void, CiError> run_container_job(const CiRunRequest& request, RunnerKind engine,
                                               const JobContext& context) {
  const std::string program(runner_name(engine));
  const auto& image = *context.image;
  // The build context: the generated Dockerfile and the running gpuenv
  // where the Dockerfile's COPY expects it.
  const auto context_dir = request.gpuenv_cache_dir / "ci-context" / image.name;
  std::error_code error;
  fs::remove_all(context_dir, error);
  if (image.gpuenv_bundle.empty()) {
    fs::create_directories((context_dir / image.gpuenv_binary).parent_path(), error);
    fs::copy_file(request.gpuenv_binary, context_dir / image.gpuenv_binary, error);
  } else {
    if (auto made = make_gpuenv_bundle(bundle_request_for(request), context_dir / image.gpuenv_bundle); !made) {
      return std::unexpected(made.error());
    }
  }
  if (error) {
    return std::unexpected(CiError{CiError::Kind::run, image.name,
                                   fmt::format("cannot stage {} into {}: {}", request.gpuenv_binary.string(),
                                               context_dir.string(), error.message())});
  }
  if (auto written = util::write_file_atomically(context_dir / "Dockerfile", render_dockerfile(image))) {
    return std::unexpected(CiError{CiError::Kind::run, image.name, "cannot write the Dockerfile: " + *written});
  }
  const auto tag = "gpuenv/ci-" + image.name;
  if (auto built = run_logged(request, {program, "build", "-t", tag, "-f", (context_dir / "Dockerfile").string(),
                                        context_dir.string()},
                              fmt::format("{} build -t {}", program, tag), image.name);
      !built) {
    return std::unexpected(built.error());
  }
  const auto cache = image_cache(request, image);
  fs::create_directories(cache, error);
  std::vector<std::pair<fs::path, std::string>> volumes{{context.recipe_file.parent_path(), std::string(kRecipeMount) + ":ro"},
                                                        {request.output_dir, kOutputMount},
                                                        {cache, kCacheMount}};
  const auto variant_files = mounted_variant_files(context);
  for (std::size_t index = 0; index < variant_files.size(); ++index) {
    volumes.emplace_back(context.variant_files[index], variant_files[index] + ":ro");
  }
  for (const auto& mount : context.inputs->read_only_mounts()) volumes.emplace_back(mount.source, mount.target + ":ro");
  std::vector<std::string> argv{program, "run", "--rm", "-w", kOutputMount};
  for (const auto& [source, target] : volumes) {
    // -v splits at ':' (and podman's options at ','): such a path cannot be
    // passed. The target keeps the name of a --source as given.
    const auto target_path = target.substr(0, target.ends_with(":ro") ? target.size() - 3 : target.size());
    if (source.string().find_first_of(":,") != std::string::npos ||
        target_path.find_first_of(":,") != std::string::npos) {
      return std::unexpected(CiError{CiError::Kind::invalid, source.string(),
                                     fmt::format("{} holds ':' or ',', which {} run -v cannot mount; move it",
                                                 source.string(), program)});
    }
    argv.push_back("-v");
    argv.push_back(source.string() + ":" + target);
  }
  std::vector<std::string> variables{"GPUENV_CACHE_DIR=/gpuenv/cache/gpuenv", "CONDA_PKGS_DIRS=/gpuenv/cache/pkgs"};
  if (const auto bundle = host_ca_bundle(request); !bundle.empty()) {
    argv.insert(argv.end(), {"-v", bundle.string() + ":" + kCaBundleMount + ":ro"});
    for (auto& variable : ca_bundle_environment()) variables.push_back(std::move(variable));
  }
  for (const auto& variable : variables) {
    argv.push_back("-e");
    argv.push_back(variable);
  }
  argv.push_back(tag);
  const auto build = with_stdout_to(fmt::format("{}/{}", kOutputMount, context.stdout_name),
                                    build_arguments(request, *context.job, mounted_paths(context)));
  argv.insert(argv.end(), build.begin(), build.end());
  if (request.on_step) request.on_step(fmt::format("{} run {}", program, tag));
  const auto ran = run_streamed(request, argv, build::current_environment());
  if (!ran.started) return std::unexpected(CiError{CiError::Kind::run, image.name, ran.start_error});
  return {};
}

}  // namespace gpuenv::ci::detail
