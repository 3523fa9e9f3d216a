// Cold CUDA detection (`gpuenv cuda --json --refresh`) against the bare
// driver calls it is made of, measured in the same run on the GPU machine.
//
// "Bare" is the least any detector must do: a process that dlopens libcuda
// and calls cuInit, cuDriverGetVersion, cuDeviceGetCount and, per device,
// cuDeviceGet, cuDeviceGetName, the two compute capability attributes,
// cuDeviceTotalMem_v2, cuDeviceGetUuid and cuDeviceGetPCIBusId. Both are
// timed as whole processes (start to exit, as a user sees them), runs
// alternating so both see the same driver state (a GPU that wakes from idle
// slows whichever runs first). The budget: gpuenv's median at most 1.2x the
// bare median.
//
//   cuda_detection_bench --gpuenv PATH [--runs N] [--libcuda PATH] [--budget 1.2]
//   cuda_detection_bench --bare-once [--libcuda PATH]   (one bare run; used internally)
//
// Build: g++ -std=c++23 -O2 -I src bench/cuda_detection/cuda_detection_bench.cpp -ldl
#include <dlfcn.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/system/driver_abi.hpp"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
namespace abi = gpuenv::system::abi;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

template <typename Function>
Function symbol(void* handle, const char* name) {
  return reinterpret_cast<Function>(::dlsym(handle, name));
}

// One bare detection in this process; prints "bare_ms <total> <step timings>".
int bare_once(const std::string& library) {
  const auto start = Clock::now();
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", library.c_str(), ::dlerror());
    return 2;
  }
  const double dlopen_ms = ms_since(start);
  const auto init = symbol<abi::cuInit_t>(handle, "cuInit");
  const auto version = symbol<abi::cuDriverGetVersion_t>(handle, "cuDriverGetVersion");
  const auto count = symbol<abi::cuDeviceGetCount_t>(handle, "cuDeviceGetCount");
  const auto get = symbol<abi::cuDeviceGet_t>(handle, "cuDeviceGet");
  const auto name = symbol<abi::cuDeviceGetName_t>(handle, "cuDeviceGetName");
  const auto attribute = symbol<abi::cuDeviceGetAttribute_t>(handle, "cuDeviceGetAttribute");
  const auto memory = symbol<abi::cuDeviceTotalMem_v2_t>(handle, "cuDeviceTotalMem_v2");
  auto uuid = symbol<abi::cuDeviceGetUuid_t>(handle, "cuDeviceGetUuid_v2");
  if (uuid == nullptr) uuid = symbol<abi::cuDeviceGetUuid_t>(handle, "cuDeviceGetUuid");
  const auto pci = symbol<abi::cuDeviceGetPCIBusId_t>(handle, "cuDeviceGetPCIBusId");
  if (!init || !version || !count || !get || !name || !attribute || !memory || !uuid || !pci) {
    std::fprintf(stderr, "%s lacks a driver entry point\n", library.c_str());
    return 2;
  }
  auto step = Clock::now();
  if (const int result = init(0); result != abi::CUDA_SUCCESS) {
    std::fprintf(stderr, "cuInit failed with %d\n", result);
    return 3;
  }
  const double init_ms = ms_since(step);
  step = Clock::now();
  int driver_version = 0;
  int devices = 0;
  version(&driver_version);
  count(&devices);
  for (int index = 0; index < devices; ++index) {
    abi::CUdevice device = 0;
    char text[256] = {};
    int major = 0;
    int minor = 0;
    std::size_t bytes = 0;
    abi::CUuuid id{};
    get(&device, index);
    name(text, sizeof text - 1, device);
    attribute(&major, abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    attribute(&minor, abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    memory(&bytes, device);
    uuid(&id, device);
    pci(text, sizeof text - 1, device);
  }
  const double queries_ms = ms_since(step);
  std::printf("bare_ms %.3f dlopen_ms %.3f cuInit_ms %.3f queries_ms %.3f devices %d driver %d\n",
              ms_since(start), dlopen_ms, init_ms, queries_ms, devices, driver_version);
  return 0;
}

struct Run {
  double wall_ms = 0;
  int status = -1;
  std::string output;
};

// Runs `argv` with extra environment entries; times it from spawn to exit.
Run timed_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
  environment.insert(environment.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (auto& arg : args) argp.push_back(arg.data());
  argp.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  Run run;
  const auto start = Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data()) != 0) {
    std::fprintf(stderr, "cannot start %s\n", argp[0]);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return run;
  }
  ::close(pipe_fds[1]);
  char buffer[4096];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) run.output.append(buffer, got);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.wall_ms = ms_since(start);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  posix_spawn_file_actions_destroy(&actions);
  return run;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const auto middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

double field(const std::string& text, const std::string& key) {
  const auto at = text.find(key + " ");
  if (at == std::string::npos) return -1;
  return std::atof(text.c_str() + at + key.size() + 1);
}

// gpuenv's own "probe_ms" from its JSON (the driver work inside the process).
double probe_ms(const std::string& json) {
  const auto at = json.find("\"probe_ms\":");
  return at == std::string::npos ? -1 : std::atof(json.c_str() + at + 11);
}

}  // namespace

int main(int argc, char** argv) {
  std::string gpuenv;
  std::string library;
  int runs = 10;
  double budget = 1.2;
  bool bare_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (arg == "--bare-once") bare_only = true;
    else if (arg == "--gpuenv") gpuenv = next();
    else if (arg == "--libcuda") library = next();
    else if (arg == "--runs") runs = std::max(1, std::atoi(next().c_str()));
    else if (arg == "--budget") budget = std::atof(next().c_str());
    else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  if (bare_only) return bare_once(library.empty() ? "libcuda.so.1" : library);
  if (gpuenv.empty()) {
    std::fprintf(stderr, "usage: %s --gpuenv PATH [--runs N] [--libcuda PATH] [--budget 1.2]\n", argv[0]);
    return 2;
  }
  const auto self = std::filesystem::canonical("/proc/self/exe").string();
  char cache_template[] = "/tmp/gpuenv-bench-cache-XXXXXX";
  const std::string cache = ::mkdtemp(cache_template);
  std::vector<std::string> gpuenv_env = {"GPUENV_CACHE_DIR=" + cache};
  if (!library.empty()) {
    gpuenv_env.push_back("GPUENV_LIBCUDA=" + library);
  } else {
    // Time the bare calls on the very library gpuenv finds by its own search
    // (it may live outside the loader's path, e.g. /usr/local/nvidia/lib64).
    const auto first = timed_process({gpuenv, "cuda", "--json", "--refresh"}, gpuenv_env);
    const auto at = first.output.find("\"library\": \"");
    if (at == std::string::npos) {
      std::fprintf(stderr, "gpuenv found no libcuda:\n%s\n", first.output.c_str());
      return 1;
    }
    const auto start = at + 12;
    library = first.output.substr(start, first.output.find('"', start) - start);
  }
  std::printf("libcuda: %s\n\n", library.c_str());

  std::vector<double> bare_wall, bare_inside, gpuenv_wall, gpuenv_probe;
  std::printf("%-4s %12s %12s %14s %14s\n", "run", "bare wall", "bare inside", "gpuenv wall", "gpuenv probe");
  for (int i = 0; i < runs; ++i) {
    // Alternate which goes first, so neither always meets a colder driver.
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == (i % 2 == 0)) {
        const auto bare = timed_process({self, "--bare-once", "--libcuda", library}, {});
        if (bare.status != 0) {
          std::fprintf(stderr, "the bare driver calls failed (status %d)\n", bare.status);
          return 1;
        }
        bare_wall.push_back(bare.wall_ms);
        bare_inside.push_back(field(bare.output, "bare_ms"));
      } else {
        const auto run = timed_process({gpuenv, "cuda", "--json", "--refresh"}, gpuenv_env);
        if (run.status != 0 || run.output.find("\"status\": \"ok\"") == std::string::npos) {
          std::fprintf(stderr, "gpuenv cuda did not detect the GPU (status %d):\n%s\n", run.status,
                       run.output.c_str());
          return 1;
        }
        gpuenv_wall.push_back(run.wall_ms);
        gpuenv_probe.push_back(probe_ms(run.output));
      }
    }
    std::printf("%-4d %9.1f ms %9.1f ms %11.1f ms %11.1f ms\n", i + 1, bare_wall.back(), bare_inside.back(),
                gpuenv_wall.back(), gpuenv_probe.back());
  }
  std::filesystem::remove_all(cache);

  const double ratio = median(gpuenv_wall) / median(bare_wall);
  const double inner_ratio = median(gpuenv_probe) / median(bare_inside);
  std::printf("\nmedian  bare process %.1f ms (driver calls inside it %.1f ms)\n", median(bare_wall),
              median(bare_inside));
  std::printf("median  gpuenv cuda --json --refresh %.1f ms (its probe %.1f ms)\n", median(gpuenv_wall),
              median(gpuenv_probe));
  std::printf("ratio   gpuenv / bare, whole processes: %.3f (budget %.2f)\n", ratio, budget);
  std::printf("ratio   gpuenv probe / bare driver calls: %.3f\n", inner_ratio);
  std::printf("%s  cold detection within %.2fx of the bare driver calls\n", ratio <= budget ? "PASS" : "FAIL",
              budget);
  return ratio <= budget ? 0 : 1;
}
