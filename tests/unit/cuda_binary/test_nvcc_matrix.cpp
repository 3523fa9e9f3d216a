// Binaries nvcc builds at test time over many -gencode combinations: what
// gpuenv lists must be what nvcc was asked to build, and what cuobjdump
// lists. Skipped (saying so) where nvcc or cuobjdump is not installed; CI
// machines have nvcc, and cuobjdump comes from PyPI (nvidia-cuda-cuobjdump).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "cuda_binary_test_support.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::cuda_binary {
namespace {

namespace fs = std::filesystem;

std::string find_tool(const char* variable, const std::vector<std::string>& candidates, const char* name) {
  if (const char* value = std::getenv(variable); value && *value) return fs::exists(value) ? value : "";
  for (const auto& candidate : candidates)
    if (fs::exists(candidate)) return candidate;
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest = path;
    while (!rest.empty()) {
      auto directory = rest.substr(0, rest.find(':'));
      rest = directory.size() < rest.size() ? rest.substr(directory.size() + 1) : "";
      if (!directory.empty() && fs::exists(fs::path(directory) / name)) return (fs::path(directory) / name).string();
    }
  }
  return "";
}

std::pair<int, std::string> run_command(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::array<char, 4096> buffer{};
  while (auto got = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), got);
  return {::pclose(pipe), output};
}

// cuobjdump's "ELF file 1: x.1.sm_80.cubin" / "PTX file 1: x.1.sm_90.ptx".
std::multiset<std::string> cuobjdump_listing(const std::string& cuobjdump, const std::string& path) {
  auto [status, output] = run_command("'" + cuobjdump + "' --list-elf --list-ptx '" + path + "'");
  std::multiset<std::string> listed;
  static const std::regex line(R"((ELF|PTX) file\s+\d+: .*\.(sm_\d+[af]?)\.(cubin|ptx))");
  for (std::sregex_iterator it(output.begin(), output.end(), line), end; it != end; ++it)
    listed.insert(std::string((*it)[1] == "ELF" ? "sass " : "ptx ") + (*it)[2].str());
  return listed;
}

// The same names as cuobjdump spells them: family machine code (sm_120f) is
// listed as sm_120, PTX as sm_XX.
std::multiset<std::string> as_cuobjdump_names(const BinaryListing& listing) {
  std::multiset<std::string> names;
  for (const auto& entry : listing.entries) {
    auto arch = entry.arch;
    if (entry.kind == CodeKind::sass) {
      if (arch.variant == ArchVariant::family) arch.variant = ArchVariant::portable;
      names.insert("sass " + arch.sm_name());
    } else if (entry.kind == CodeKind::ptx) {
      names.insert("ptx " + arch.sm_name());
    }
  }
  return names;
}

struct Combination {
  std::string name;
  std::string output;  // file name; its extension picks the nvcc mode
  std::string nvcc_arguments;
  std::set<std::string> expected;  // distinct "kind target"
  std::string compression;         // every entry's, or "" when nvcc decides
};

const std::vector<Combination>& combinations() {
  static const std::vector<Combination> all = {
      {"sass_only", "sass.fatbin", "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_86,code=sm_86 --compress-mode=none",
       {"sass sm_75", "sass sm_86"}, "none"},
      {"ptx_only", "ptx.fatbin", "-gencode arch=compute_89,code=compute_89 --compress-mode=none", {"ptx compute_89"}, "none"},
      {"sass_and_ptx_compress_all", "both.fatbin",
       "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] -Xfatbin -compress-all",
       {"sass sm_80", "sass sm_90", "ptx compute_90"}, "zstd"},
      {"arch_specific", "a.fatbin", "-gencode arch=compute_90a,code=[sm_90a,compute_90a] --compress-mode=none",
       {"sass sm_90a", "ptx compute_90a"}, "none"},
      {"family", "f.fatbin", "-gencode arch=compute_120f,code=[sm_120f,compute_120f] -Xfatbin -compress-all",
       {"sass sm_120f", "ptx compute_120f"}, "zstd"},
      {"speed_mode", "speed.fatbin", "-gencode arch=compute_80,code=[sm_80,compute_80] --compress-mode=speed",
       {"sass sm_80", "ptx compute_80"}, ""},
      {"shared_library", "libk.so", "-shared -Xcompiler -fPIC -gencode arch=compute_86,code=sm_86 -gencode arch=compute_100,code=sm_100",
       {"sass sm_86", "sass sm_100"}, ""},
      {"object_file", "k.o", "-c -gencode arch=compute_89,code=[sm_89,compute_89]", {"sass sm_89", "ptx compute_89"}, ""},
      {"relocatable_object", "rdc.o", "-c -rdc=true -gencode arch=compute_90,code=sm_90", {"sass sm_90"}, ""},
      {"rdc_static_library", "librdc.a", "-lib -rdc=true -gencode arch=compute_75,code=[sm_75,compute_75]",
       {"sass sm_75", "ptx compute_75"}, ""},
  };
  return all;
}

class NvccMatrix : public ::testing::TestWithParam<Combination> {
 protected:
  void SetUp() override {
    nvcc_ = find_tool("GPUENV_NVCC", {"/usr/local/cuda/bin/nvcc"}, "nvcc");
    if (nvcc_.empty()) GTEST_SKIP() << "nvcc not found (set GPUENV_NVCC or install the CUDA toolkit): not checked here";
    // Family targets (sm_120f) and --compress-mode came with CUDA 12.9.
    auto [status, version] = run_command("'" + nvcc_ + "' --version");
    std::smatch release;
    if (status != 0 || !std::regex_search(version, release, std::regex(R"(release (\d+)\.(\d+))")) ||
        std::pair{std::stoi(release[1]), std::stoi(release[2])} < std::pair{12, 9})
      GTEST_SKIP() << nvcc_ << " is older than CUDA 12.9 (or did not say its version): this matrix needs 12.9+";
    // scripts/setup.sh installs it there from PyPI.
    cuobjdump_ = find_tool("GPUENV_CUOBJDUMP", {GPUENV_SOURCE_DIR "/build/deps/test-tools/bin/cuobjdump"}, "cuobjdump");
    gpuenv::testing::write_text_file(directory_ / "kernel.cu",
                                     "extern \"C\" __global__ void add_one(int* v) { v[threadIdx.x] += 1; }\n");
  }
  // The PTX ISA version this nvcc writes, read from its own --ptx output.
  std::string nvcc_ptx_isa() {
    auto [status, output] = run_command("'" + nvcc_ + "' --ptx -arch=compute_80 -o '" + (directory_ / "k.ptx").string() +
                                        "' '" + (directory_ / "kernel.cu").string() + "'");
    EXPECT_EQ(status, 0) << output;
    auto listing = read_device_code((directory_ / "k.ptx").string());
    return listing ? to_string(*listing->entries.at(0).ptx_isa) : "";
  }
  std::string nvcc_;
  std::string cuobjdump_;
  gpuenv::testing::TempDirectory directory_;
};

TEST_P(NvccMatrix, ListsWhatNvccBuiltAndWhatCuobjdumpLists) {
  const auto& combination = GetParam();
  const auto output = (directory_ / combination.output).string();
  const bool plain_fatbin = combination.output.ends_with(".fatbin");
  auto [status, log] = run_command("cd '" + directory_.path().string() + "' && '" + nvcc_ + "' " +
                                   (plain_fatbin ? "--fatbin " : "") + combination.nvcc_arguments + " kernel.cu -o '" +
                                   output + "'");
  ASSERT_EQ(status, 0) << log;
  auto listing = read_device_code(output);
  ASSERT_TRUE(listing) << listing.error().message;
  std::set<std::string> targets;
  for (const auto& entry : listing->entries) targets.insert(to_string(entry.kind) + " " + target_name(entry));
  EXPECT_EQ(targets, combination.expected);
  const auto isa = nvcc_ptx_isa();
  for (const auto& entry : listing->entries) {
    if (!combination.compression.empty()) {
      EXPECT_EQ(to_string(entry.compression), combination.compression);
    }
    if (entry.kind == CodeKind::ptx) {
      EXPECT_EQ(to_string(*entry.ptx_isa), isa);
    }
    EXPECT_TRUE(entry.registered);
  }
  if (cuobjdump_.empty()) {
    std::printf("cuobjdump not found (pip install nvidia-cuda-cuobjdump, or set GPUENV_CUOBJDUMP): "
                "the comparison with it is skipped\n");
    return;
  }
  EXPECT_EQ(as_cuobjdump_names(*listing), cuobjdump_listing(cuobjdump_, output));
}

INSTANTIATE_TEST_SUITE_P(Gencode, NvccMatrix, ::testing::ValuesIn(combinations()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace gpuenv::cuda_binary
