#include "gpuenv/ci/rootfs_builder.hpp"

#include <fmt/core.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <system_error>

#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/ci/chroot_command.hpp"
#include "gpuenv/ci/preflight.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::ci {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

CiError run_failure(const std::string& image, std::string message) {
  return CiError{CiError::Kind::run, image, std::move(message)};
}

void step(const RootfsRequest& request, const std::string& line) {
  if (request.on_step) request.on_step(line);
}

// The command's last lines of output when it succeeds.
std::expected<std::string, CiError> run_host_command(const RootfsRequest& request, const std::string& what,
                                                     const std::vector<std::string>& argv) {
  step(request, what);
  build::ProcessRequest process;
  process.argv = argv;
  process.environment = build::current_environment();
  process.working_directory = "/";
  process.on_output = request.on_output;
  const auto result = build::run_process(process);
  if (result.succeeded()) return result.output_tail;
  const auto why = result.started ? fmt::format("exit status {}", result.exit_code) : result.start_error;
  return std::unexpected(run_failure(
      request.image.name, fmt::format("making the root filesystem of image {}: {} failed ({}); its last output:\n{}",
                                      request.image.name, what, why, result.output_tail)));
}

// apt and friends inside the tree being made: writable, nothing mounted
// from the host but /proc, /tmp and /dev.
std::expected<std::string, CiError> run_in_tree(const RootfsRequest& request, const fs::path& tree,
                                                const std::string& what, const std::vector<std::string>& argv) {
  ChrootInvocation invocation;
  invocation.root = tree;
  invocation.read_only_root = false;
  invocation.environment = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root",
                            "LANG=C.UTF-8", "DEBIAN_FRONTEND=noninteractive"};
  invocation.argv = argv;
  auto command = chroot_command(invocation);
  if (!command) return std::unexpected(command.error());
  return run_host_command(request, what, *command);
}

std::expected<void, CiError> finish_tree(const RootfsRequest& request, const fs::path& staging,
                                         const fs::path& final_path, double seconds) {
  const nlohmann::json marker{{"key", final_path.filename().string()},
                              {"image", request.image.name},
                              {"mirror", request.mirror.uri},
                              {"suite", request.mirror.suite},
                              {"made_at", static_cast<long long>(std::time(nullptr))},
                              {"seconds", seconds}};
  if (auto error = util::write_file_atomically(staging / rootfs_marker, marker.dump(2) + "\n")) {
    return std::unexpected(run_failure(request.image.name, fmt::format("cannot write {}: {}",
                                                                       (staging / rootfs_marker).string(), *error)));
  }
  std::error_code error;
  fs::rename(staging, final_path, error);
  if (!error) return {};
  // Another run finished the same tree first: keep its tree.
  if (fs::exists(final_path / rootfs_marker)) {
    fs::remove_all(staging, error);
    return {};
  }
  return std::unexpected(run_failure(request.image.name, fmt::format("cannot move {} to {}: {}; remove {} and retry",
                                                                     staging.string(), final_path.string(),
                                                                     error.message(), final_path.string())));
}

std::expected<void, CiError> make_base(const RootfsRequest& request, const fs::path& base) {
  if (fs::exists(base / rootfs_marker)) return {};
  const auto start = Clock::now();
  const auto staging = staging_path(base, ::getpid());
  std::error_code error;
  fs::remove_all(staging, error);
  if (auto made = run_host_command(request, fmt::format("debootstrap {} from {} into {}", request.mirror.suite,
                                                        request.mirror.uri, staging.string()),
                                   debootstrap_command(request.mirror, staging));
      !made) {
    return std::unexpected(made.error());
  }
  return finish_tree(request, staging, base, std::chrono::duration<double>(Clock::now() - start).count());
}

std::expected<void, CiError> install_pypi_toolkit(const RootfsRequest& request, const fs::path& tree,
                                                  const CudaToolkit& toolkit) {
  const fs::path downloads = tree.string() + ".wheels";
  std::error_code error;
  fs::remove_all(downloads, error);
  fs::create_directories(downloads / "unpacked", error);
  const fs::path requirements = downloads / "requirements.txt";
  if (auto problem = util::write_file_atomically(requirements, pinned_wheel_requirements(toolkit))) {
    return std::unexpected(run_failure(request.image.name, *problem));
  }
  if (auto got = run_host_command(request, fmt::format("pip download {}", fmt::join(toolkit.packages, " ")),
                                  pip_download_command(requirements, downloads));
      !got) {
    return std::unexpected(got.error());
  }
  for (const auto& entry : fs::directory_iterator(downloads, error)) {
    if (entry.path().extension() != ".whl") continue;
    if (auto unpacked = run_host_command(
            request, "unpack " + entry.path().filename().string(),
            {"python3", "-m", "zipfile", "-e", entry.path().string(), (downloads / "unpacked").string()});
        !unpacked) {
      return std::unexpected(unpacked.error());
    }
  }
  const auto wheel_root = downloads / "unpacked" / toolkit.wheel_root;
  if (!fs::is_directory(wheel_root)) {
    return std::unexpected(run_failure(
        request.image.name, fmt::format("image {}: the wheels of {} hold no {}; fix cuda.wheel_root in its image.yaml",
                                        request.image.name, fmt::join(toolkit.packages, ", "), toolkit.wheel_root)));
  }
  const auto home = tree / fs::path(toolkit.home).relative_path();
  fs::create_directories(home, error);
  fs::copy(wheel_root, home, fs::copy_options::recursive | fs::copy_options::overwrite_existing, error);
  if (error) {
    return std::unexpected(run_failure(request.image.name, fmt::format("cannot copy {} into {}: {}",
                                                                       wheel_root.string(), home.string(),
                                                                       error.message())));
  }
  if (fs::is_directory(home / "lib") && !fs::exists(home / "lib64")) fs::create_directory_symlink("lib", home / "lib64");
  // Zip archives do not carry Unix modes through python's zipfile.
  for (const auto& programs : {home / "bin", home / "nvvm" / "bin"}) {
    for (const auto& entry : fs::recursive_directory_iterator(programs, error)) {
      if (entry.is_regular_file()) fs::permissions(entry.path(), fs::perms::owner_exec | fs::perms::group_exec |
                                                                     fs::perms::others_exec, fs::perm_options::add);
    }
  }
  fs::remove_all(downloads, error);
  return {};
}

std::expected<void, CiError> make_image_tree(const RootfsRequest& request, const RootfsPaths& paths) {
  const auto start = Clock::now();
  const auto staging = staging_path(paths.image, ::getpid());
  std::error_code error;
  fs::remove_all(staging, error);
  if (auto copied = run_host_command(request, "copy the base " + paths.base.filename().string(),
                                     {"cp", "-a", "--reflink=auto", paths.base.string(), staging.string()});
      !copied) {
    return std::unexpected(copied.error());
  }
  fs::remove(staging / rootfs_marker, error);
  if (auto written = util::write_file_atomically(staging / "etc/apt/sources.list",
                                                 apt_sources_list(request.image, request.mirror))) {
    return std::unexpected(run_failure(request.image.name, "cannot write the tree's apt sources: " + *written));
  }
  if (fs::exists(request.resolv_conf)) {
    fs::remove(staging / "etc/resolv.conf", error);
    fs::copy_file(request.resolv_conf, staging / "etc/resolv.conf", error);
  }
  for (const char* mount_point : {kRecipeMount, kOutputMount, kCacheMount, kVariantsMount}) {
    fs::create_directories(staging / fs::path(mount_point).relative_path(), error);
  }
  fs::create_directories(staging / "usr/local/bin", error);
  if (request.image.gpuenv_bundle.empty()) {
    (void)util::write_file_atomically(staging / fs::path(kGpuenvMount).relative_path(), "");
  } else {
    // The bundle is mounted on kGpuenvBundleDir; its gpuenv must be run from
    // there for its $ORIGIN rpath to find the bundled libraries.
    fs::create_directories(staging / fs::path(kGpuenvBundleDir).relative_path(), error);
    fs::create_symlink(std::string(kGpuenvBundleDir) + "/gpuenv", staging / fs::path(kGpuenvMount).relative_path(),
                       error);
  }
  std::vector<std::string> install{"apt-get", "install", "-y", "-q", "--no-install-recommends"};
  const auto packages = apt_packages(request.image);
  install.insert(install.end(), packages.begin(), packages.end());
  for (const auto& [what, argv] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"apt-get update", {"apt-get", "update", "-q"}},
           {fmt::format("apt-get install {} packages", packages.size()), install},
           {"apt-get clean", {"apt-get", "clean"}}}) {
    if (auto ran = run_in_tree(request, staging, what, argv); !ran) return std::unexpected(ran.error());
  }
  for (const auto& [link, target] : compiler_links(request.image)) {
    fs::remove(staging / fs::path(link).relative_path(), error);
    fs::create_symlink(target, staging / fs::path(link).relative_path(), error);
  }
  fs::remove_all(staging / "var/lib/apt/lists", error);
  fs::create_directories(staging / "var/lib/apt/lists/partial", error);
  if (request.image.cuda) {
    const auto& cuda = *request.image.cuda;
    if (cuda.provider == ToolkitProvider::pypi) {
      if (auto installed = install_pypi_toolkit(request, staging, cuda); !installed) return installed;
    }
    // The tree is published only with the toolkit it declares.
    const auto version = run_in_tree(request, staging, "nvcc --version", {cuda.home + "/bin/nvcc", "--version"});
    if (!version) return std::unexpected(version.error());
    if (auto same = check_nvcc_release(*version, cuda.version, request.image.name); !same) {
      return std::unexpected(same.error());
    }
  }
  return finish_tree(request, staging, paths.image, std::chrono::duration<double>(Clock::now() - start).count());
}

}  // namespace

std::expected<Rootfs, CiError> ensure_rootfs(const RootfsRequest& request) {
  const auto paths = rootfs_paths(request.gpuenv_cache_dir, request.image, request.mirror);
  if (fs::exists(paths.image / rootfs_marker)) return Rootfs{paths.image, true, 0};
  if (request.image.cuda && request.image.cuda->provider == ToolkitProvider::conda) {
    return std::unexpected(CiError{
        CiError::Kind::unavailable, request.image.name,
        fmt::format("image {} takes its CUDA toolkit from the conda channel {} (cuda.provider: conda), which the "
                    "chroot runner does not install: it makes root filesystems from Debian's mirror and PyPI only. "
                    "Use --runner podman or --runner docker where {} is reachable, or --runner host with a CUDA {} "
                    "toolkit installed",
                    request.image.name, request.image.cuda->channel, request.image.cuda->channel,
                    request.image.cuda->version)});
  }
  const auto start = Clock::now();
  std::error_code error;
  fs::create_directories(paths.cache_root, error);
  if (error) {
    return std::unexpected(CiError{CiError::Kind::unreadable, paths.cache_root.string(),
                                   fmt::format("cannot create {}: {}; set GPUENV_CACHE_DIR to a writable directory",
                                               paths.cache_root.string(), error.message())});
  }
  remove_stale_staging(paths.cache_root);
  if (auto base = make_base(request, paths.base); !base) return std::unexpected(base.error());
  if (auto tree = make_image_tree(request, paths); !tree) return std::unexpected(tree.error());
  return Rootfs{paths.image, false, std::chrono::duration<double>(Clock::now() - start).count()};
}

}  // namespace gpuenv::ci
