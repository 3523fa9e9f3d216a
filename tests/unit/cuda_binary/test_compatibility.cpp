// The verdicts `gpuenv doctor` gives: which code a GPU runs natively, which
// it JIT-compiles, and when the runtime will refuse.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cuda_binary_test_support.hpp"
#include "gpuenv/cuda_binary/compatibility.hpp"

namespace gpuenv::cuda_binary {
namespace {

GpuArchitecture arch(const char* text) { return *parse_gpu_architecture(text); }

PtxIsaTable shipped_table() {
  std::ifstream in(std::filesystem::path(GPUENV_SOURCE_DIR) / "metadata/ptx_isa_versions.tsv");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::string error;
  auto table = PtxIsaTable::parse(text, error);
  EXPECT_TRUE(table) << error;
  return table.value_or(PtxIsaTable{});
}

ListingSummary code(std::vector<const char*> sass, std::vector<std::pair<const char*, PtxIsaVersion>> ptx = {}) {
  ListingSummary summary;
  for (const auto* name : sass) summary.sass.push_back(arch(name));
  for (const auto& [name, isa] : ptx) summary.ptx.push_back({arch(name), isa});
  std::sort(summary.sass.begin(), summary.sass.end());
  std::sort(summary.ptx.begin(), summary.ptx.end());
  return summary;
}

const CudaRelease cuda_13_0{13, 0};

TEST(Compatibility, SassRunsOnItsMajorWithAnEqualOrHigherMinor) {
  EXPECT_TRUE(sass_runs_on(arch("sm_80"), arch("sm_86")));
  EXPECT_TRUE(sass_runs_on(arch("sm_86"), arch("sm_86")));
  EXPECT_FALSE(sass_runs_on(arch("sm_86"), arch("sm_80")));
  EXPECT_FALSE(sass_runs_on(arch("sm_80"), arch("sm_90")));
  EXPECT_FALSE(sass_runs_on(arch("sm_90"), arch("sm_100")));
  EXPECT_TRUE(sass_runs_on(arch("sm_90a"), arch("sm_90")));
  EXPECT_FALSE(sass_runs_on(arch("sm_100a"), arch("sm_103")));
  EXPECT_TRUE(sass_runs_on(arch("sm_100f"), arch("sm_103")));
  EXPECT_FALSE(sass_runs_on(arch("sm_103f"), arch("sm_100")));
}

TEST(Compatibility, PtxCompilesForItsArchitectureAndEveryNewerOne) {
  EXPECT_TRUE(ptx_compiles_for(arch("compute_80"), arch("sm_90")));
  EXPECT_TRUE(ptx_compiles_for(arch("compute_80"), arch("sm_120")));
  EXPECT_FALSE(ptx_compiles_for(arch("compute_90"), arch("sm_89")));
  EXPECT_TRUE(ptx_compiles_for(arch("compute_90a"), arch("sm_90")));
  EXPECT_FALSE(ptx_compiles_for(arch("compute_90a"), arch("sm_100")));
  EXPECT_TRUE(ptx_compiles_for(arch("compute_100f"), arch("sm_103")));
  EXPECT_FALSE(ptx_compiles_for(arch("compute_100f"), arch("sm_120")));
}

TEST(Compatibility, TheFourVerdictsForAnH200) {
  const auto table = shipped_table();
  const auto gpu = arch("sm_90");
  auto sm80 = judge(code({"sm_80"}), gpu, cuda_13_0, table);
  EXPECT_EQ(sm80.verdict, RunVerdict::no_kernel_image);
  EXPECT_EQ(sm80.runtime_error, "no kernel image is available for execution on the device");
  EXPECT_NE(sm80.explanation.find("it carries sm_80"), std::string::npos) << sm80.explanation;

  auto sm90 = judge(code({"sm_80", "sm_90"}), gpu, cuda_13_0, table);
  EXPECT_EQ(sm90.verdict, RunVerdict::native);
  EXPECT_EQ(sm90.used_target, "sm_90");

  auto ptx = judge(code({}, {{"compute_90", {9, 0}}}), gpu, cuda_13_0, table);
  EXPECT_EQ(ptx.verdict, RunVerdict::ptx_jit);
  EXPECT_NE(ptx.explanation.find("slow first start"), std::string::npos);

  auto sm100 = judge(code({"sm_100"}), gpu, cuda_13_0, table);
  EXPECT_EQ(sm100.verdict, RunVerdict::no_kernel_image);
}

TEST(Compatibility, PtxNewerThanTheDriverCannotBeCompiled) {
  const auto table = shipped_table();
  auto too_new = judge(code({}, {{"compute_80", {9, 1}}}), arch("sm_90"), cuda_13_0, table);
  EXPECT_EQ(too_new.verdict, RunVerdict::ptx_too_new);
  EXPECT_EQ(too_new.runtime_error, "the provided PTX was compiled with an unsupported toolchain");
  EXPECT_NE(too_new.explanation.find("CUDA >= 13.1"), std::string::npos) << too_new.explanation;
  // An older PTX beside it is used instead.
  auto fallback = judge(code({}, {{"compute_80", {9, 1}}, {"compute_75", {8, 8}}}), arch("sm_90"), cuda_13_0, table);
  EXPECT_EQ(fallback.verdict, RunVerdict::ptx_jit);
  EXPECT_NE(fallback.used_target.find("compute_75"), std::string::npos);
  // Without a driver (another machine, --gpu) only the architecture counts.
  EXPECT_EQ(judge(code({}, {{"compute_80", {9, 1}}}), arch("sm_90"), std::nullopt, table).verdict, RunVerdict::ptx_jit);
}

TEST(Compatibility, ArchSpecificCodeOnlyOnItsOwnArchitecture) {
  const auto table = shipped_table();
  EXPECT_EQ(judge(code({"sm_90a"}), arch("sm_90"), cuda_13_0, table).verdict, RunVerdict::native);
  EXPECT_EQ(judge(code({"sm_90a"}, {{"compute_90a", {9, 0}}}), arch("sm_100"), cuda_13_0, table).verdict,
            RunVerdict::no_kernel_image);
  EXPECT_EQ(judge(code({"sm_100f"}), arch("sm_103"), cuda_13_0, table).verdict, RunVerdict::native);
}

TEST(Compatibility, PtxIsaTableRowsAndRefusals) {
  const auto table = shipped_table();
  EXPECT_EQ(table.first_cuda_for({9, 0}), (CudaRelease{13, 0}));
  EXPECT_EQ(table.first_cuda_for({8, 6}), (CudaRelease{12, 7}));
  EXPECT_EQ(table.first_cuda_for({7, 0}), (CudaRelease{11, 0}));
  EXPECT_FALSE(table.first_cuda_for({99, 0}));
  std::string error;
  EXPECT_FALSE(PtxIsaTable::parse("ptx_isa\tcuda_version\n9.x\t13.0\n", error));
  EXPECT_NE(error.find("9.x"), std::string::npos);
}

}  // namespace
}  // namespace gpuenv::cuda_binary
